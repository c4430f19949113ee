/**
 * `npm run start:distributed`: starts Postgres, Redis, Kafka, MinIO and Qdrant (scripts/infra)
 * and the seven services as separate processes, gateway on PORT (default 8080), mail in the
 * outbox transport under DATA_DIR/outbox, semantic search on the Qdrant of scripts/infra (or
 * the one QDRANT_URL names, with QDRANT_API_KEY). Ctrl-C or SIGTERM stops everything.
 *
 * Service settings in this environment (GRAPH_RATE_LIMIT_PER_MINUTE, INGEST_CONCURRENCY,
 * LOG_LEVEL… any variable a service's config schema reads) reach the services, so the knobs
 * of `npm start` work here too; what the cluster wires itself (ports, peer URLs, database,
 * Redis, Kafka, object storage, keys, mail) is not taken from it.
 */
import path from 'node:path';
import type { z } from 'zod';
import { SERVICE_NAMES } from '@kg/contracts';
import { startCluster } from './cluster';

/** Variables the cluster sets itself: never taken from the environment. */
const WIRED = new Set(
  [
    'PORT HOST METRICS_PORT DATABASE_URL REDIS_URL KAFKA_BROKERS INTERNAL_SIGNING_KEY INTERNAL_PUBLIC_KEYS',
    'AUTH_URL GRAPH_URL PARA_URL CAPTURES_URL SEARCH_URL AUTH_SIGNING_KEY API_KEY_PEPPER MAIL_TRANSPORT',
    'OUTBOX_DIR PUBLIC_URL BLOB_STORE BLOB_DIR S3_ENDPOINT S3_BUCKET S3_ACCESS_KEY_ID S3_SECRET_ACCESS_KEY',
    'S3_FORCE_PATH_STYLE S3_CREATE_BUCKET VECTORS_DIR QDRANT_URL',
  ]
    .join(' ')
    .split(' '),
);

/** The settings of this environment that some service's config schema reads, less the wired ones. */
async function serviceSettings(): Promise<Record<string, string>> {
  const known = new Set<string>();
  for (const name of SERVICE_NAMES) {
    const module = (await import(`../../services/${name}/src/config.ts`)) as Record<string, unknown>;
    const schema = module[`${name.replace(/-(\w)/g, (_, c: string) => c.toUpperCase())}ConfigSchema`];
    for (const key of Object.keys((schema as z.ZodObject | undefined)?.shape ?? {})) known.add(key);
  }
  return Object.fromEntries(
    Object.entries(process.env).filter(
      (e): e is [string, string] => known.has(e[0]) && !WIRED.has(e[0]) && e[1] !== undefined,
    ),
  );
}

const dataDir = path.resolve(process.env['DATA_DIR'] ?? './data-distributed');
const cluster = await startCluster({
  dataDir,
  gatewayPort: Number(process.env['PORT'] ?? 8080),
  basePort: Number(process.env['KG_SERVICES_BASE_PORT'] ?? 18100),
  manageInfra: true,
  freshDatabase: false,
  ...(process.env['QDRANT_URL'] ? { qdrantUrl: process.env['QDRANT_URL'] } : {}),
  extraEnv: await serviceSettings(),
});
console.log(`knowledge graph (distributed) listening on ${cluster.gatewayUrl}/api/v1`);
console.log(`mail outbox: ${cluster.outboxDir}; service logs: ${path.join(dataDir, 'logs')}`);
console.log(`semantic search vectors: Qdrant at ${cluster.qdrantUrl}`);
let stopping = false;
const shutdown = async () => {
  if (stopping) return;
  stopping = true;
  console.log('stopping services and infrastructure…');
  await cluster.stopAll();
  process.exit(0);
};
process.on('SIGINT', () => void shutdown());
process.on('SIGTERM', () => void shutdown());
