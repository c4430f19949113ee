import { describe, expect, it } from 'vitest';
import { createInternalTokens } from './internal';

const identity = {
  tenantId: 'tnt_01jd8x6q1bf5r3v2m9w7k4t0za',
  subject: 'usr_01jd8x6q1bf5r3v2m9w7k4t0zb',
  credential: { kind: 'jwt' as const, id: 'x' },
};

describe('internal tokens', () => {
  const tokens = createInternalTokens('s'.repeat(40));

  it('round-trips caller and identity for the intended audience', async () => {
    const t = await tokens.sign('gateway', 'graph', identity);
    expect(await tokens.verify(t, 'graph')).toEqual({ caller: 'gateway', identity });
  });

  it('rejects another audience and another secret', async () => {
    const t = await tokens.sign('gateway', 'graph', null);
    await expect(tokens.verify(t, 'auth')).rejects.toThrow();
    await expect(createInternalTokens('x'.repeat(40)).verify(t, 'graph')).rejects.toThrow();
  });
});
