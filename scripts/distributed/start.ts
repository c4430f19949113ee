/**
 * `npm run start:distributed`: starts Postgres, Redis and Kafka (scripts/infra) and the
 * seven services as separate processes, gateway on PORT (default 8080), mail in the
 * outbox transport under DATA_DIR/outbox. Ctrl-C or SIGTERM stops everything.
 */
import path from 'node:path';
import { startCluster } from './cluster';

const dataDir = path.resolve(process.env['DATA_DIR'] ?? './data-distributed');
const cluster = await startCluster({
  dataDir,
  gatewayPort: Number(process.env['PORT'] ?? 8080),
  basePort: Number(process.env['KG_SERVICES_BASE_PORT'] ?? 18100),
  manageInfra: true,
  freshDatabase: false,
});
console.log(`knowledge graph (distributed) listening on ${cluster.gatewayUrl}/api/v1`);
console.log(`mail outbox: ${cluster.outboxDir}; service logs: ${path.join(dataDir, 'logs')}`);
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
