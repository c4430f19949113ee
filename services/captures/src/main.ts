import { loadConfig } from '@kg/config';
import { openDatabase, postgresOptions } from '@kg/db';
import { createLogger } from '@kg/logger';
import { failFast, runServiceProcess } from '@kg/service-kit';
import { createInternalTokens } from '@kg/tokens';
import { capturesConfigSchema } from './config';
import { createCapturesModule } from './module';

try {
  const config = loadConfig('captures', capturesConfigSchema);
  const logger = createLogger('captures', config.LOG_LEVEL);
  // Its own signing key (checked at start-up) and the public keys of the services that call it.
  const internal = await createInternalTokens('captures', config.INTERNAL_SIGNING_KEY, config.INTERNAL_PUBLIC_KEYS);
  const database = await openDatabase(postgresOptions(config));
  await runServiceProcess({
    argv: process.argv.slice(2),
    logger,
    database,
    migrations: null,
    createModule: () => createCapturesModule({ database, logger }),
    port: config.PORT,
    host: config.HOST,
    metricsPort: config.METRICS_PORT,
    verifier: internal.verifier,
  });
} catch (err) {
  failFast('captures', err);
}
