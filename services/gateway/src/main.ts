import type { Server } from 'node:http';
import { loadConfig } from '@kg/config';
import { createRedisKv } from '@kg/kv';
import { createLogger } from '@kg/logger';
import { failFast } from '@kg/service-kit';
import { createInternalTokenSigner, createJwksCache } from '@kg/tokens';
import { connectService } from '@kg/trpc';
import { createGatewayApp } from './app';
import { gatewayConfigSchema } from './config';
import { PEER_CONTRACTS, type GatewayPeers } from './peers';

/** The gateway as its own process: peers over tRPC/HTTP, the only service that takes public traffic. */
try {
  const config = loadConfig('gateway', gatewayConfigSchema);
  const logger = createLogger('gateway', config.LOG_LEVEL);
  // The gateway only calls (it serves no tRPC): it needs its own signing key, no public keys.
  const signer = await createInternalTokenSigner('gateway', config.INTERNAL_SIGNING_KEY);
  const urls = {
    auth: config.AUTH_URL,
    graph: config.GRAPH_URL,
    para: config.PARA_URL,
    captures: config.CAPTURES_URL,
    search: config.SEARCH_URL,
  };
  const peers = Object.fromEntries(
    Object.entries(PEER_CONTRACTS).map(([name, contract]) => [
      name,
      connectService('gateway', name, contract, {
        kind: 'http',
        url: `${urls[name as keyof typeof urls]}/trpc`,
        signer,
        timeoutMs: config.PEER_TIMEOUT_MS,
      }),
    ]),
  ) as unknown as GatewayPeers;
  const jwks = createJwksCache(() => peers.auth.as(null).tokens.jwks({}) as never);
  const kv = createRedisKv(config.REDIS_URL);
  const ready = async () => {
    const checks = await Promise.all([
      kv.ping(),
      ...Object.values(urls).map((u) =>
        fetch(`${u}/readyz`, { signal: AbortSignal.timeout(2000) }).then(
          (r) => r.ok,
          () => false,
        ),
      ),
    ]);
    return checks.every(Boolean);
  };
  const app = createGatewayApp({ config, peers, kv, logger, keys: jwks.resolver, ready });
  const server: Server = app.listen(config.PORT, config.HOST, () =>
    logger.info({ port: config.PORT }, 'gateway listening'),
  );
  const shutdown = () => server.close(() => process.exit(0));
  process.once('SIGTERM', shutdown);
  process.once('SIGINT', shutdown);
} catch (err) {
  failFast('gateway', err);
}
