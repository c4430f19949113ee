import { describe } from 'vitest';
import { warmupSuite } from './seed-warmup.suite';

/** The database walk of the views on real PostgreSQL (its collation, its planner): GRAPH_TEST_PG_URL. */
const url = process.env['GRAPH_TEST_PG_URL'];
// Outside CI it runs only when GRAPH_TEST_PG_URL is set; in CI (.ci/run sets it) a missing URL fails loudly.
describe.skipIf(!url && !process.env['CI'])('on PostgreSQL', () => {
  warmupSuite('seed and neighbours while the tenant graph warms up (PostgreSQL)', () => ({ url: url! }));
});
