import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import pg from 'pg';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const url = process.env['GRAPH_TEST_PG_URL'];

/**
 * `main.ts migrate` of each service with DATABASE_URL as its only variable (what the Helm
 * migrations Job gives it): the migrations apply, twice in a row, with no signing key, pepper,
 * broker or peer setting in the environment.
 */
describe.skipIf(!url && !process.env['CI'])('main.ts migrate with only DATABASE_URL (real PostgreSQL)', () => {
  it.each([
    ['auth', 'auth'],
    ['para', 'para'],
    ['graph', 'graph'],
    ['search', 'search'],
  ])(
    '%s applies its migrations',
    async (service, schema) => {
      for (let round = 0; round < 2; round++) {
        const { stdout } = await run(
          process.execPath,
          ['--import', 'tsx', `services/${service}/src/main.ts`, 'migrate'],
          { env: { PATH: process.env['PATH'] ?? '', DATABASE_URL: url! }, timeout: 50_000 },
        );
        expect(stdout).toContain('migrations applied');
      }
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        const { rows } = await client.query<{ n: string }>(
          'SELECT count(*) AS n FROM information_schema.tables WHERE table_schema = $1',
          [schema],
        );
        expect(Number(rows[0]!.n)).toBeGreaterThan(0);
      } finally {
        await client.end();
      }
    },
    60_000,
  );
});
