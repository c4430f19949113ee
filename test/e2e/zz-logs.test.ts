import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { inject } from 'vitest';

describe('server logs', () => {
  it('contain none of the tokens, keys or magic-link tokens the suite used', () => {
    const logPath = inject('logPath');
    expect(logPath, 'the suite must know where the server logs go').toBeTruthy();
    expect(existsSync(logPath)).toBe(true);
    const log = readFileSync(logPath, 'utf8');
    expect(log.length).toBeGreaterThan(0);
    const secrets = readFileSync(inject('secretsPath'), 'utf8')
      .split('\n')
      .filter((s) => s.length >= 16);
    expect(secrets.length).toBeGreaterThan(20);
    const leaked = secrets.filter((s) => log.includes(s));
    expect(leaked).toEqual([]);
  });
});
