import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ConfigError, loadConfig } from './load';
import { bool, list, port } from './fields';

const schema = z.object({ PORT: port(8080), DATABASE_URL: z.url(), DEBUG: bool(false), ORIGINS: list() });

describe('loadConfig', () => {
  it('parses and applies defaults', () => {
    const cfg = loadConfig('x', schema, { DATABASE_URL: 'postgres://a@b/c', ORIGINS: 'http://a, http://b' });
    expect(cfg).toEqual({
      PORT: 8080,
      DATABASE_URL: 'postgres://a@b/c',
      DEBUG: false,
      ORIGINS: ['http://a', 'http://b'],
    });
  });

  it('names every missing or invalid variable', () => {
    expect(() => loadConfig('graph', schema, { PORT: 'abc' })).toThrow(ConfigError);
    try {
      loadConfig('graph', schema, { PORT: 'abc' });
    } catch (e) {
      const err = e as ConfigError;
      expect(err.message).toContain('graph: invalid configuration');
      expect(err.problems.some((p) => p.startsWith('PORT'))).toBe(true);
      expect(err.problems.some((p) => p.startsWith('DATABASE_URL') && p.includes('(not set)'))).toBe(true);
    }
  });
});
