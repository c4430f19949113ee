import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const SERVICES = ['gateway', 'auth', 'graph', 'para', 'captures', 'search', 'ingest-worker'];

/** Every service starts standalone from its main.ts, and refuses to start without its config. */
describe('service main.ts without configuration', () => {
  it.each(SERVICES)(
    '%s exits 1 naming the missing variables',
    async (service) => {
      const result = await run(process.execPath, ['--import', 'tsx', `services/${service}/src/main.ts`], {
        env: { PATH: process.env['PATH'] ?? '' },
        timeout: 30_000,
      }).then(
        () => ({ code: 0, stderr: '' }),
        (err: { code: number; stderr: string }) => ({ code: err.code, stderr: err.stderr }),
      );
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(`${service}: cannot start`);
      expect(result.stderr).toContain('INTERNAL_SIGNING_KEY');
      // The gateway and the ingest worker keep no data of their own: no database.
      if (service !== 'gateway' && service !== 'ingest-worker') expect(result.stderr).toContain('DATABASE_URL');
      else expect(result.stderr).not.toContain('DATABASE_URL');
      if (service !== 'gateway') expect(result.stderr).toContain('INTERNAL_PUBLIC_KEYS');
      if (service === 'ingest-worker')
        for (const v of ['CAPTURES_URL', 'GRAPH_URL', 'SEARCH_URL', 'KAFKA_BROKERS'])
          expect(result.stderr).toContain(v);
    },
    40_000,
  );
});

/** A key that is well-formed JSON but not a key: the start-up error names the variable, never the material. */
describe('service main.ts with bad internal keys', () => {
  it('para exits 1 naming INTERNAL_SIGNING_KEY without echoing it', async () => {
    const marker = 'Zm9yYmlkZGVuLXNlY3JldC1tYXRlcmlhbC0wMTIzNDU';
    const result = await run(process.execPath, ['--import', 'tsx', 'services/para/src/main.ts'], {
      env: {
        PATH: process.env['PATH'] ?? '',
        DATABASE_URL: 'postgres://kg@127.0.0.1:1/kg',
        INTERNAL_SIGNING_KEY: JSON.stringify({ kty: 'OKP', crv: 'Ed25519', x: 'short', d: marker }),
        INTERNAL_PUBLIC_KEYS: JSON.stringify({ graph: { kty: 'OKP', crv: 'Ed25519', x: marker, d: marker } }),
      },
      timeout: 30_000,
    }).then(
      () => ({ code: 0, stderr: '' }),
      (err: { code: number; stderr: string }) => ({ code: err.code, stderr: err.stderr }),
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('INTERNAL_SIGNING_KEY.x');
    expect(result.stderr).toContain('INTERNAL_PUBLIC_KEYS.graph.0.d');
    expect(result.stderr).not.toContain(marker);
  }, 40_000);
});

/** `main.ts migrate` reads only the database settings: no signing key, pepper or peer URL (least privilege). */
describe('service main.ts migrate with only DATABASE_URL', () => {
  const MIGRATED = ['auth', 'para', 'graph', 'search', 'captures'];
  const migrate = (service: string, env: Record<string, string>) =>
    run(process.execPath, ['--import', 'tsx', `services/${service}/src/main.ts`, 'migrate'], {
      env: { PATH: process.env['PATH'] ?? '', ...env },
      timeout: 30_000,
    }).then(
      () => ({ code: 0, stderr: '' }),
      (err: { code: number; stderr: string }) => ({ code: err.code, stderr: err.stderr }),
    );

  it.each(MIGRATED)(
    '%s asks for DATABASE_URL alone, then only fails on the unreachable database',
    async (service) => {
      const bare = await migrate(service, {});
      expect(bare.code).toBe(1);
      expect(bare.stderr).toContain('DATABASE_URL');
      expect(bare.stderr).not.toMatch(
        /INTERNAL_|AUTH_SIGNING_KEY|API_KEY_PEPPER|KAFKA_BROKERS|REDIS_URL|S3_|_URL: .*GRAPH/,
      );
      // Port 1 refuses the connection: the config was accepted and the first migration statement was tried.
      const result = await migrate(service, {
        DATABASE_URL: 'postgres://kg@127.0.0.1:1/kg',
        DATABASE_CONNECT_TIMEOUT_MS: '2000',
      });
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(`${service}: cannot start`);
      expect(result.stderr).not.toContain('invalid configuration');
      expect(result.stderr).toMatch(/ECONNREFUSED|Failed query: CREATE SCHEMA/);
    },
    40_000,
  );
});
