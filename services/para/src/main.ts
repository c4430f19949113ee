import { graphApi } from '@kg/contracts';
import { loadConfig } from '@kg/config';
import { openDatabase } from '@kg/db';
import { createLogger } from '@kg/logger';
import { failFast, runServiceProcess } from '@kg/service-kit';
import { createInternalTokens } from '@kg/tokens';
import { connectService } from '@kg/trpc';
import { paraConfigSchema } from './config';
import { createParaModule, paraMigrations } from './module';

try {
  const config = loadConfig('para', paraConfigSchema);
  const logger = createLogger('para', config.LOG_LEVEL);
  // Its own signing key (checked at start-up) and the public keys of the services that call it.
  const internal = await createInternalTokens('para', config.INTERNAL_SIGNING_KEY, config.INTERNAL_PUBLIC_KEYS);
  const database = await openDatabase({ url: config.DATABASE_URL });
  const graph = connectService('para', 'graph', graphApi, {
    kind: 'http',
    url: `${config.GRAPH_URL}/trpc`,
    signer: internal.signer,
    timeoutMs: config.PEER_TIMEOUT_MS,
  });
  await runServiceProcess({
    argv: process.argv.slice(2),
    logger,
    database,
    migrations: paraMigrations,
    createModule: () => createParaModule({ database, logger, graph }),
    port: config.PORT,
    host: config.HOST,
    verifier: internal.verifier,
  });
} catch (err) {
  failFast('para', err);
}
