import type { Server } from 'node:http';
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { createKafkaBus, kafkaConnection } from '@kg/bus';
import { loadConfig } from '@kg/config';
import { createRedisKv } from '@kg/kv';
import { createLogger } from '@kg/logger';
import {
  createMetrics,
  drainOnShutdown,
  failFast,
  serveMetrics,
  startMemoryReducer,
  type Drain,
} from '@kg/service-kit';
import { createInternalTokenSigner, createJwksCache } from '@kg/tokens';
import { connectService } from '@kg/trpc';
import { apiKeyCache, createGatewayApp } from './app';
import { revocationsFromBus } from './http/api-key-revocations';
import { applyServerTimeouts } from './http/server-timeouts';
import { gatewayConfigSchema } from './config';
import { createEventFeed, feedFromBus } from './events/feed';
import { graphTransport } from './graph-replicas';
import { PEER_CONTRACTS, type GatewayPeers } from './peers';

/** How long a starting gateway waits for its live-event feed before it is ready anyway (Kafka down). */
const FEED_JOIN_WAIT_MS = 30_000;

/** The gateway as its own process: peers over tRPC/HTTP, the only service that takes public traffic. */
try {
  const config = loadConfig('gateway', gatewayConfigSchema);
  const logger = createLogger('gateway', config.LOG_LEVEL);
  // The gateway only calls (it serves no tRPC): it needs its own signing key, no public keys.
  const signer = await createInternalTokenSigner('gateway', config.INTERNAL_SIGNING_KEY);
  const urls = {
    auth: config.AUTH_URL,
    para: config.PARA_URL,
    captures: config.CAPTURES_URL,
    search: config.SEARCH_URL,
  };
  const graph = await graphTransport(config, signer, logger);
  const peers = Object.fromEntries(
    Object.entries(PEER_CONTRACTS).map(([name, contract]) => [
      name,
      connectService(
        'gateway',
        name,
        contract,
        name === 'graph'
          ? graph.transport
          : {
              kind: 'http',
              url: `${urls[name as keyof typeof urls]}/trpc`,
              signer,
              timeoutMs: config.PEER_TIMEOUT_MS,
            },
      ),
    ]),
  ) as unknown as GatewayPeers;
  const jwks = createJwksCache(() => peers.auth.as(null).tokens.jwks({}) as never);
  const kv = createRedisKv({ url: config.REDIS_URL, password: config.REDIS_PASSWORD });
  // Ready when its own dependency (Redis: rate limits, cursors) is. Peers are not checked: a
  // peer that is down turns only its own routes into 503, and the JWKS comes from the auth
  // peer (cached; unreachable keys answer 503 on the routes that need them).
  // While it stops (SHUTDOWN_DRAIN_MS), it is not ready: the Service's endpoints drop it.
  // A replica that has just started is not ready until its live-event feed has joined its
  // consumer group (below): a stream opened on it before then would miss the events published
  // meanwhile. Bounded by FEED_JOIN_WAIT_MS, so a Kafka outage never keeps the API away.
  const stopping: { drain?: Drain } = {};
  const started = Date.now();
  let feedJoined = false;
  const ready = async () => {
    if (stopping.drain?.draining()) throw new Error('shutting down');
    if (!feedJoined && Date.now() - started < FEED_JOIN_WAIT_MS) throw new Error('live events not joined yet');
    return kv.ping();
  };
  const metrics = createMetrics('gateway');
  // GET /events: every replica consumes the capture and node events in a group of its own,
  // from the newest message on, and fans them out to the streams it holds.
  const events = createEventFeed();
  const bus = createKafkaBus({ ...kafkaConnection(config), clientId: 'gateway', logger });
  const group = `gateway-events-${hostname()}-${randomUUID().slice(0, 8)}`;
  await feedFromBus(bus, events, group, logger, (live) => {
    if (live && !feedJoined) logger.info({ group, ms: Date.now() - started }, 'live events joined: ready');
    feedJoined ||= live;
  });
  // Verified API keys are kept API_KEY_CACHE_TTL_SECONDS; a revocation event drops one at once.
  const apiKeys = apiKeyCache(config);
  await revocationsFromBus(bus, apiKeys, group, logger);
  bus
    .start()
    .catch((err: unknown) => logger.error({ err }, 'live events unavailable: the Kafka consumer did not start'));
  const app = createGatewayApp({ config, peers, kv, logger, keys: jwks.resolver, ready, metrics, events, apiKeys });
  const server: Server = app.listen(config.PORT, config.HOST, () =>
    logger.info({ port: config.PORT }, 'gateway listening'),
  );
  // Idle kept-alive connections outlive a load balancer's and client pools' idle timeouts
  // (ECONNRESET otherwise), and an upload is ended by its own read deadline (http/server-timeouts.ts).
  applyServerTimeouts(server, config);
  const metricsServer = await serveMetrics(metrics.registry, config.METRICS_PORT, config.HOST);
  logger.info({ port: metricsServer.port }, 'gateway metrics listening');
  const reducer = startMemoryReducer({
    intervalMs: config.MEMORY_REDUCE_INTERVAL_MS,
    registry: metrics.registry,
    logger,
  });
  // Keeps answering for SHUTDOWN_DRAIN_MS (readiness failing, connections ending), then stops
  // listening; open event streams are cut 5 s later.
  const drain = drainOnShutdown(server, { drainMs: config.SHUTDOWN_DRAIN_MS, forceMs: 5000 });
  stopping.drain = drain;
  const shutdown = () => {
    logger.info({ drainMs: config.SHUTDOWN_DRAIN_MS }, 'gateway stopping');
    void drain
      .shutdown()
      .then(() => (graph.close(), reducer.stop(), Promise.all([metricsServer.close(), bus.stop()])))
      .then(() => process.exit(0));
  };
  process.once('SIGTERM', shutdown);
  process.once('SIGINT', shutdown);
} catch (err) {
  failFast('gateway', err);
}
