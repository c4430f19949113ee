import { parseArgs } from 'node:util';
import { TenantId } from '@kg/contracts';
import type { Db } from '@kg/db';
import { isVectorIndexUnavailable, VectorCollectionMismatchError, type VectorIndex } from '@kg/vectors';
import type { NodeSource } from '../indexing/indexer';
import { tenantsWithDocuments } from '../store/reindex';
import {
  dropOldCollections,
  reindexTenant,
  UnknownTenantError,
  type ReindexDeps,
  type ReindexProgress,
} from './reindex';

export const USAGE = `usage: npm run reindex -- (--tenant <id>... | --all) [--drop-old-collections]
       npm run reindex -- --drop-old-collections
  --tenant <id>             rebuild this tenant's vectors from graph (repeatable)
  --all                     rebuild every tenant that has nodes (after a model change)
  --drop-old-collections    then delete the vector collections of other embedding models,
                            only once every tenant's vectors are made with the current one
mode: DATABASE_URL set -> the distributed mode (the search service's settings: DATABASE_URL,
      GRAPH_URL, QDRANT_URL, INTERNAL_*, EMBEDDINGS_*); otherwise the embedded mode on DATA_DIR
      (default ./data), with the server stopped
exit: 0 done, 1 failed (the line says why), 2 bad arguments, 3 unknown tenant`;

/** What the command works on: search's database, its vector index and embedder, graph's nodes. */
export interface ReindexTarget {
  /** Where, for the first line (never a password). */
  where: string;
  db: Db;
  vectors: VectorIndex;
  embedder: ReindexDeps['embedder'];
  nodes: NodeSource;
  close(): Promise<void>;
}

export interface Io {
  out(line: string): void;
  err(line: string): void;
  now?: () => number;
}

export const EXIT = { ok: 0, failed: 1, usage: 2, unknownTenant: 3 } as const;

type Args = { tenants: string[]; all: boolean; drop: boolean };

function parse(argv: string[]): Args | string {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        tenant: { type: 'string', multiple: true },
        all: { type: 'boolean' },
        'drop-old-collections': { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
  if (values.help) return '';
  const tenants = values.tenant ?? [];
  const all = values.all ?? false;
  const drop = values['drop-old-collections'] ?? false;
  if (all && tenants.length > 0) return '--all and --tenant exclude each other';
  if (!all && tenants.length === 0 && !drop) return 'name a tenant (--tenant <id>) or --all';
  for (const tenant of tenants) {
    const parsed = TenantId.safeParse(tenant);
    if (!parsed.success) return `--tenant ${JSON.stringify(tenant.slice(0, 80))} is not a tenant id (tnt_…)`;
  }
  return { tenants, all, drop };
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const progressLine = (p: ReindexProgress) =>
  `reindex ${p.tenantId}: ${p.done}/${p.total} nodes, ${p.ratePerSecond.toFixed(1)}/s, ${seconds(p.elapsedMs)}`;

/** One line for a failure, never a stack trace: what failed and the setting to check. */
function describeFailure(err: unknown): string {
  if (isVectorIndexUnavailable(err)) return `reindex: the vector index cannot answer: ${err.diagnostic}`;
  if (err instanceof VectorCollectionMismatchError) return `reindex: ${err.message}`;
  return `reindex: failed: ${err instanceof Error ? err.message : String(err)}`;
}

/**
 * `npm run reindex`: rebuilds tenants' vectors from graph (reindex.ts), printing progress, then
 * optionally drops the collections of older models. Returns the exit code.
 */
export async function runReindex(argv: string[], open: () => Promise<ReindexTarget>, io: Io): Promise<number> {
  const args = parse(argv);
  if (typeof args === 'string') {
    if (args === '') {
      io.out(USAGE);
      return EXIT.ok;
    }
    io.err(`reindex: ${args}`);
    io.err(USAGE);
    return EXIT.usage;
  }
  let target: ReindexTarget;
  try {
    target = await open();
  } catch (err) {
    // Settings or data not there (a config error lists every setting wrong): its own words.
    const message = err instanceof Error ? err.message : String(err);
    io.err(message.startsWith('reindex: ') ? message : `reindex: ${message}`);
    return EXIT.failed;
  }
  try {
    const { db, vectors, embedder, nodes } = target;
    io.out(`reindex: ${target.where}, model ${embedder.model} (${embedder.dimensions} dimensions)`);
    const tenants = args.all ? await tenantsWithDocuments(db) : args.tenants;
    if (args.all) io.out(`reindex: ${tenants.length} tenants with nodes`);
    for (const tenantId of tenants) {
      const result = await reindexTenant(
        {
          db,
          vectors,
          embedder,
          nodes,
          onProgress: (p) => io.out(progressLine(p)),
          ...(io.now ? { now: io.now } : {}),
        },
        tenantId,
      );
      io.out(
        `reindex ${tenantId}: done: ${result.embedded} of ${result.total} nodes embedded into ${result.collection}, ` +
          `${result.removed} vectors removed, ${seconds(result.elapsedMs)}`,
      );
    }
    if (args.drop) {
      const dropped = await dropOldCollections({ db, vectors, embedder });
      if ('incomplete' in dropped) {
        io.err(
          `reindex: old collections kept: ${dropped.current} holds ${dropped.incomplete.embedded} of ` +
            `${dropped.incomplete.total} nodes; run npm run reindex -- --all (or wait for the indexer), then again`,
        );
        return EXIT.failed;
      }
      io.out(
        dropped.dropped.length > 0
          ? `reindex: dropped ${dropped.dropped.join(', ')} (kept ${dropped.current})`
          : `reindex: no old collection to drop (kept ${dropped.current})`,
      );
    }
    return EXIT.ok;
  } catch (err) {
    if (err instanceof UnknownTenantError) {
      io.err(`reindex: ${err.message}`);
      return EXIT.unknownTenant;
    }
    io.err(describeFailure(err));
    return EXIT.failed;
  } finally {
    await target.close().catch(() => undefined);
  }
}
