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
      expect(result.stderr).toContain('INTERNAL_TOKEN_SECRET');
      if (service !== 'gateway') expect(result.stderr).toContain('DATABASE_URL');
    },
    40_000,
  );
});
