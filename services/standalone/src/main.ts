import { loadConfig } from '@kg/config';
import { createLogger } from '@kg/logger';
import { standaloneConfigSchema } from './config';
import { startHost } from './host';

/** `npm start`: the whole service in one process, no external server needed. */
try {
  const config = loadConfig('knowledge-graph', standaloneConfigSchema);
  const logger = createLogger('knowledge-graph', config.LOG_LEVEL);
  const host = await startHost(config, logger);
  let closing = false;
  const shutdown = (signal: string) => {
    if (closing) return;
    closing = true;
    logger.info({ signal }, 'shutting down');
    const force = setTimeout(() => process.exit(1), 15_000);
    force.unref();
    host.close().then(
      () => process.exit(0),
      (err: unknown) => {
        logger.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
} catch (err) {
  process.stderr.write(`knowledge-graph: cannot start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
}
