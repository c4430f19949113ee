import type { Logger } from '@kg/logger';
import type { InternalTokenSigner } from '@kg/tokens';
import { createReplicaSet, dnsReplicas, type ServiceTransport } from '@kg/trpc';
import type { GatewayConfig } from './config';

type GraphRouting = Pick<
  GatewayConfig,
  | 'GRAPH_URL'
  | 'GRAPH_REPLICAS'
  | 'GRAPH_REPLICAS_DNS'
  | 'GRAPH_REPLICAS_REFRESH_MS'
  | 'GRAPH_ROUTING'
  | 'PEER_TIMEOUT_MS'
>;

/**
 * How the gateway reaches graph: GRAPH_URL alone, or its replicas (a list, or a headless
 * Service's addresses kept fresh) with a tenant's calls routed to the same one, so each
 * replica keeps only its share of the tenants' graphs in memory (docs/configuration.md).
 */
export async function graphTransport(
  config: GraphRouting,
  signer: InternalTokenSigner,
  logger: Logger,
): Promise<{ transport: ServiceTransport; close(): void }> {
  const timeoutMs = config.PEER_TIMEOUT_MS;
  if (config.GRAPH_REPLICAS.length === 0 && !config.GRAPH_REPLICAS_DNS)
    return { transport: { kind: 'http', url: `${config.GRAPH_URL}/trpc`, signer, timeoutMs }, close: () => {} };
  const dns = config.GRAPH_REPLICAS_DNS
    ? dnsReplicas({
        url: config.GRAPH_REPLICAS_DNS,
        fallback: [config.GRAPH_URL],
        refreshMs: config.GRAPH_REPLICAS_REFRESH_MS,
        onChange: (e) =>
          'err' in e
            ? logger.warn(
                { err: e.err },
                'graph replicas: resolving GRAPH_REPLICAS_DNS failed, keeping the last answer',
              )
            : logger.info({ replicas: e.urls }, 'graph replicas changed'),
      })
    : null;
  await dns?.refresh();
  const listed = config.GRAPH_REPLICAS;
  const replicas = createReplicaSet({ urls: dns ? dns.urls : () => listed, routing: config.GRAPH_ROUTING });
  logger.info({ replicas: replicas.urls(), routing: config.GRAPH_ROUTING }, 'graph calls routed over replicas');
  return { transport: { kind: 'replicated', replicas, signer, timeoutMs }, close: () => dns?.close() };
}
