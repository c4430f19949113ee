/**
 * `npm run reindex -- --tenant <id> | --all [--drop-old-collections]`: rebuilds tenants' vectors
 * from graph (services/search/src/reindex/). With DATABASE_URL set, the distributed mode: the
 * search service's own settings, beside running search replicas. Without, the embedded mode:
 * the data of `npm start` under DATA_DIR, with that server stopped (its database and vector
 * index are single-process): this process mounts graph on DATA_DIR to read the nodes.
 */
import path from 'node:path';
import { existsSync } from 'node:fs';
import { z } from 'zod';
import { env, loadConfig } from '@kg/config';
import { graphApi, type paraApi } from '@kg/contracts';
import { createMemoryBus } from '@kg/bus';
import { openDatabase } from '@kg/db';
import { createEmbedder } from '@kg/embeddings';
import { createMemoryKv } from '@kg/kv';
import { createLogger } from '@kg/logger';
import { connectService, type ServiceHandle } from '@kg/trpc';
import { createMemoryVectorIndex } from '@kg/vectors';
import { createGraphModule } from '@kg/service-graph/module';
import { searchConfigSchema } from '../services/search/src/config';
import { graphNodeSource } from '../services/search/src/graph-calls';
import { runReindex, type ReindexTarget } from '../services/search/src/reindex/cli';
import { openSearchTarget } from '../services/search/src/reindex/open';

/** Only whether DATABASE_URL is set: it picks the mode. */
const modeSchema = z.object({ DATABASE_URL: z.string().min(1).optional() });

/** The embedded server's settings the command needs (services/standalone/src/config.ts). */
export const embeddedReindexSchema = z
  .object({
    DATA_DIR: z.string().min(1).default('./data'),
    /** The embedded server's port: something answering there means the server still runs. */
    PORT: env.port(8080),
    ...env.embeddings,
  })
  .superRefine(env.checkEmbeddings);

/** Whether anything answers HTTP on the port (the embedded server, still running). */
async function answers(port: number): Promise<boolean> {
  try {
    await fetch(`http://127.0.0.1:${port}/healthz`, { signal: AbortSignal.timeout(2000) });
    return true;
  } catch {
    return false;
  }
}

async function openEmbedded(config: z.infer<typeof embeddedReindexSchema>): Promise<ReindexTarget> {
  const dataDir = path.resolve(config.DATA_DIR);
  if (!existsSync(path.join(dataDir, 'pgdata')))
    throw new Error(`no embedded data under ${dataDir} (DATA_DIR; the distributed mode needs DATABASE_URL)`);
  if (await answers(config.PORT))
    throw new Error(
      `something answers on port ${config.PORT} (PORT): stop the embedded server first; ` +
        `its database and vector index under ${dataDir} are used by one process at a time`,
    );
  const logger = createLogger('reindex', 'warn');
  const database = await openDatabase({ dataDir });
  const kv = createMemoryKv();
  try {
    // Graph mounted on the same data, not started (no relay, no jobs): only its reads are used.
    const graph = await createGraphModule({
      database,
      bus: createMemoryBus(logger),
      logger,
      kv,
      singleWriter: true,
      para: { service: 'para', as: () => ({}) as never } as ServiceHandle<typeof paraApi>,
    });
    const embedder = await createEmbedder(config);
    return {
      where: `embedded: ${dataDir}`,
      db: database.db,
      vectors: createMemoryVectorIndex({ dir: path.join(dataDir, 'vectors') }),
      embedder,
      nodes: graphNodeSource(
        connectService('search', 'graph', graphApi, { kind: 'local', router: graph.router, logger }),
      ),
      close: async () => {
        await embedder.close();
        await kv.close();
        await database.close();
      },
    };
  } catch (err) {
    await kv.close();
    await database.close();
    throw err;
  }
}

try {
  const distributed = loadConfig('reindex', modeSchema).DATABASE_URL !== undefined;
  // Settings are read once the arguments are valid (a bad argument or --help needs none).
  const open = distributed
    ? () => openSearchTarget(loadConfig('reindex', searchConfigSchema))
    : () => openEmbedded(loadConfig('reindex', embeddedReindexSchema));
  process.exitCode = await runReindex(process.argv.slice(2), open, {
    out: (line) => process.stdout.write(`${line}\n`),
    err: (line) => process.stderr.write(`${line}\n`),
  });
} catch (err) {
  process.stderr.write(`reindex: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
}
