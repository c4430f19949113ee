import { paraApi } from '@kg/contracts';
import { loadConfig } from '@kg/config';
import { createKafkaBus } from '@kg/bus';
import { openDatabase } from '@kg/db';
import { createRedisKv } from '@kg/kv';
import { createLogger } from '@kg/logger';
import { failFast, runServiceProcess } from '@kg/service-kit';
import { createInternalTokens } from '@kg/tokens';
import { connectService } from '@kg/trpc';
import { graphConfigSchema } from './config';
import { createGraphModule, graphMigrations } from './module';

try {
  const config = loadConfig('graph', graphConfigSchema);
  const logger = createLogger('graph', config.LOG_LEVEL);
  const internal = await createInternalTokens('graph', config.INTERNAL_SIGNING_KEY, config.INTERNAL_PUBLIC_KEYS);
  const database = await openDatabase({ url: config.DATABASE_URL });
  const kv = createRedisKv(config.REDIS_URL);
  const bus = createKafkaBus({ brokers: config.KAFKA_BROKERS, clientId: 'graph', logger });
  const para = connectService('graph', 'para', paraApi, {
    kind: 'http',
    url: `${config.PARA_URL}/trpc`,
    signer: internal.signer,
    timeoutMs: config.PEER_TIMEOUT_MS,
  });
  await runServiceProcess({
    argv: process.argv.slice(2),
    logger,
    database,
    bus,
    resources: [kv],
    migrations: graphMigrations,
    createModule: () => createGraphModule({ database, bus, logger, para, kv }),
    port: config.PORT,
    host: config.HOST,
    verifier: internal.verifier,
  });
} catch (err) {
  failFast('graph', err);
}
