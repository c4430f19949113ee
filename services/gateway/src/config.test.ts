import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '@kg/config';
import { gatewayConfigSchema } from './config';

/** The gateway as its own process, with every peer URL; each test adds what it checks. */
const base = {
  INTERNAL_SIGNING_KEY: JSON.stringify({ kty: 'OKP', crv: 'Ed25519', x: 'x'.repeat(43), d: 'd'.repeat(43) }),
  AUTH_URL: 'http://auth:3001',
  GRAPH_URL: 'http://graph:3002',
  PARA_URL: 'http://para:3003',
  CAPTURES_URL: 'http://captures:3004',
  SEARCH_URL: 'http://search:3005',
  KAFKA_BROKERS: 'kafka:9092',
  REDIS_URL: 'redis://redis:6379',
};
const problems = (env: Record<string, string>) => {
  try {
    loadConfig('gateway', gatewayConfigSchema, env);
    return [];
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return (e as ConfigError).problems;
  }
};

describe('gatewayConfigSchema: graph replicas', () => {
  it('defaults to GRAPH_URL alone, tenant routing, a 5 s DNS refresh', () => {
    expect(problems(base)).toEqual([]);
    expect(loadConfig('gateway', gatewayConfigSchema, base)).toMatchObject({
      GRAPH_REPLICAS: [],
      GRAPH_ROUTING: 'tenant',
      GRAPH_REPLICAS_REFRESH_MS: 5000,
    });
  });

  it('reads a list of replicas, and a DNS name instead', () => {
    const list = loadConfig('gateway', gatewayConfigSchema, {
      ...base,
      GRAPH_REPLICAS: 'http://graph-0:3002, http://graph-1:3002',
      GRAPH_ROUTING: 'round-robin',
    });
    expect(list.GRAPH_REPLICAS).toEqual(['http://graph-0:3002', 'http://graph-1:3002']);
    expect(list.GRAPH_ROUTING).toBe('round-robin');
    const dns = loadConfig('gateway', gatewayConfigSchema, {
      ...base,
      GRAPH_REPLICAS_DNS: 'http://kg-graph-replicas:3002',
    });
    expect(dns.GRAPH_REPLICAS_DNS).toBe('http://kg-graph-replicas:3002');
  });

  it('refuses a malformed replica, both kinds at once, an unknown routing and a zero refresh, naming each', () => {
    expect(problems({ ...base, GRAPH_REPLICAS: 'http://graph-0:3002,graph-1' })).toEqual([
      expect.stringMatching(/^GRAPH_REPLICAS\.1: GRAPH_REPLICAS must be comma-separated http\(s\) URLs/),
    ]);
    expect(
      problems({ ...base, GRAPH_REPLICAS: 'http://graph-0:3002', GRAPH_REPLICAS_DNS: 'http://kg-graph-replicas:3002' }),
    ).toEqual([expect.stringMatching(/^GRAPH_REPLICAS: set GRAPH_REPLICAS or GRAPH_REPLICAS_DNS, not both/)]);
    expect(problems({ ...base, GRAPH_ROUTING: 'random' })).toEqual([expect.stringMatching(/^GRAPH_ROUTING: /)]);
    expect(problems({ ...base, GRAPH_REPLICAS_DNS: 'kg-graph-replicas' })).toEqual([
      expect.stringMatching(/^GRAPH_REPLICAS_DNS: /),
    ]);
    expect(problems({ ...base, GRAPH_REPLICAS_REFRESH_MS: '0' })).toEqual([
      expect.stringMatching(/^GRAPH_REPLICAS_REFRESH_MS: /),
    ]);
  });
});
