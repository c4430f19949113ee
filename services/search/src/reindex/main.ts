/**
 * The re-index command in the distributed mode, with the search service's env: what
 * `npm run reindex` (scripts/reindex.ts) runs when DATABASE_URL is set, and what a search pod
 * runs (`node --import tsx services/search/src/reindex/main.ts --tenant <id>`; the image has no scripts/).
 */
import { loadConfig } from '@kg/config';
import { searchConfigSchema } from '../config';
import { runReindex } from './cli';
import { openSearchTarget } from './open';

try {
  process.exitCode = await runReindex(
    process.argv.slice(2),
    () => openSearchTarget(loadConfig('reindex', searchConfigSchema)),
    {
      out: (line) => process.stdout.write(`${line}\n`),
      err: (line) => process.stderr.write(`${line}\n`),
    },
  );
} catch (err) {
  process.stderr.write(`reindex: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
}
