import { loadConfig } from '@kg/config';
import { createFsBlobStore, createS3BlobStore, type BlobStore } from '@kg/blobs';
import { createKafkaBus, kafkaConnection } from '@kg/bus';
import { openDatabase, postgresOptions } from '@kg/db';
import { createLogger } from '@kg/logger';
import { failFast, migrateIfAsked, runServiceProcess } from '@kg/service-kit';
import { createInternalTokens } from '@kg/tokens';
import { capturesConfigSchema, type CapturesConfig } from './config';
import { capturesMigrations, createCapturesModule } from './module';

async function openBlobs(config: CapturesConfig): Promise<BlobStore> {
  if (config.BLOB_STORE === 'fs') return createFsBlobStore(config.BLOB_DIR!);
  const s3 = createS3BlobStore({
    ...(config.S3_ENDPOINT ? { endpoint: config.S3_ENDPOINT } : {}),
    region: config.S3_REGION,
    bucket: config.S3_BUCKET!,
    accessKeyId: config.S3_ACCESS_KEY_ID!,
    secretAccessKey: config.S3_SECRET_ACCESS_KEY!,
    forcePathStyle: config.S3_FORCE_PATH_STYLE,
    createBucket: config.S3_CREATE_BUCKET,
  });
  await s3.ensureBucket();
  return s3;
}

try {
  // `migrate` needs the database only: it runs before (and without) the full config.
  await migrateIfAsked('captures', process.argv.slice(2), capturesMigrations);
  const config = loadConfig('captures', capturesConfigSchema);
  const logger = createLogger('captures', config.LOG_LEVEL);
  // Its own signing key (checked at start-up) and the public keys of the services that call it.
  const internal = await createInternalTokens('captures', config.INTERNAL_SIGNING_KEY, config.INTERNAL_PUBLIC_KEYS);
  const database = await openDatabase(postgresOptions(config));
  const bus = createKafkaBus({ ...kafkaConnection(config), clientId: 'captures', logger });
  const blobs = await openBlobs(config);
  await runServiceProcess({
    argv: process.argv.slice(2),
    logger,
    database,
    bus,
    migrations: capturesMigrations,
    createModule: () =>
      createCapturesModule({
        database,
        bus,
        blobs,
        logger,
        leaseMs: config.CAPTURE_LEASE_MS,
        webhooks: config,
        imports: config,
      }),
    port: config.PORT,
    host: config.HOST,
    metricsPort: config.METRICS_PORT,
    memoryReduceIntervalMs: config.MEMORY_REDUCE_INTERVAL_MS,
    shutdownDrainMs: config.SHUTDOWN_DRAIN_MS,
    verifier: internal.verifier,
  });
} catch (err) {
  failFast('captures', err);
}
