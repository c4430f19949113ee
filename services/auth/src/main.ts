import { loadConfig } from '@kg/config';
import { createKafkaBus, kafkaConnection } from '@kg/bus';
import { openDatabase, postgresOptions } from '@kg/db';
import { createLogger } from '@kg/logger';
import { failFast, migrateIfAsked, runServiceProcess } from '@kg/service-kit';
import { createInternalTokens } from '@kg/tokens';
import { authConfigSchema } from './config';
import {
  authMigrations,
  createAuthModule,
  createOutboxTransport,
  createSmtpTransport,
  keyMaterialFromSecrets,
  oidcSettings,
} from './module';

try {
  // `migrate` needs the database only: it runs before (and without) the full config.
  await migrateIfAsked('auth', process.argv.slice(2), authMigrations);
  const config = loadConfig('auth', authConfigSchema);
  const logger = createLogger('auth', config.LOG_LEVEL);
  // Its own signing key (checked at start-up) and the public keys of the services that call it.
  const internal = await createInternalTokens('auth', config.INTERNAL_SIGNING_KEY, config.INTERNAL_PUBLIC_KEYS);
  const keys = await keyMaterialFromSecrets(config.AUTH_SIGNING_KEY, config.API_KEY_PEPPER);
  // authConfigSchema guarantees SMTP_URL for smtp and OUTBOX_DIR for outbox.
  const mail =
    config.MAIL_TRANSPORT === 'smtp'
      ? createSmtpTransport(config.SMTP_URL!, config.MAIL_FROM)
      : createOutboxTransport(config.OUTBOX_DIR!);
  const database = await openDatabase(postgresOptions(config));
  const bus = createKafkaBus({ ...kafkaConnection(config), clientId: 'auth', logger });
  await runServiceProcess({
    argv: process.argv.slice(2),
    logger,
    database,
    bus,
    migrations: authMigrations,
    createModule: () =>
      createAuthModule({
        database,
        logger,
        keys,
        mail,
        bus,
        publicUrl: config.PUBLIC_URL,
        pruneIntervalMs: config.PRUNE_INTERVAL_MS,
        accessTokenTtlSeconds: config.ACCESS_TOKEN_TTL_SECONDS,
        oidc: oidcSettings(config),
      }),
    port: config.PORT,
    host: config.HOST,
    metricsPort: config.METRICS_PORT,
    memoryReduceIntervalMs: config.MEMORY_REDUCE_INTERVAL_MS,
    shutdownDrainMs: config.SHUTDOWN_DRAIN_MS,
    verifier: internal.verifier,
  });
} catch (err) {
  failFast('auth', err);
}
