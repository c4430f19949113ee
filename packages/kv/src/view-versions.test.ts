import { describe, expect, it } from 'vitest';
import { createMemoryKv } from './memory';
import { createViewVersions } from './view-versions';

describe('view versions', () => {
  it('keeps a tenant’s token until a write changes it, per tenant', async () => {
    const kv = createMemoryKv();
    const versions = createViewVersions(kv);
    const first = await versions.current('t1');
    expect(await versions.current('t1')).toBe(first);
    const other = await versions.current('t2');
    expect(other).not.toBe(first);
    await versions.changed('t1');
    const second = await versions.current('t1');
    expect(second).not.toBe(first);
    expect(await versions.current('t2')).toBe(other);
    await kv.close();
  });

  it('never draws a token twice: one that expired does not come back, nor one of another process', async () => {
    const kv = createMemoryKv();
    const a = createViewVersions(kv, 0); // tokens expire at once: every read draws again
    const b = createViewVersions(kv, 0);
    const seen = new Set<string>();
    for (let i = 0; i < 200; i++) {
      seen.add(await a.current('t'));
      seen.add(await b.current('t'));
    }
    expect(seen.size).toBe(400);
    await kv.close();
  });

  it('concurrent first reads, in one process or two, agree on one token', async () => {
    const kv = createMemoryKv();
    const [a, b] = [createViewVersions(kv), createViewVersions(kv)];
    const tokens = await Promise.all([a.current('t'), b.current('t'), a.current('t'), b.current('t')]);
    expect(new Set(tokens).size).toBe(1);
    expect(await a.current('t')).toBe(tokens[0]);
    await kv.close();
  });

  it('a write between two reads of the token is seen by the second', async () => {
    const kv = createMemoryKv();
    const gateway = createViewVersions(kv);
    const graph = createViewVersions(kv);
    const before = await gateway.current('t');
    await graph.changed('t');
    expect(await gateway.current('t')).not.toBe(before);
    await kv.close();
  });
});
