import type { ServiceSpec } from './services';

/**
 * Optional second replicas, started on demand (`cluster.start('graph-replica')`), never
 * by startCluster: a second graph process on the same database, Kafka and Redis (its
 * outbox relay competes with the first one's), and a second gateway that sends graph
 * calls to it, so a test can write through both replicas at once; a second search process
 * on the same database and Kafka consumer group (the node events' partitions are shared
 * between the two, and both index) and the same Qdrant, and a gateway that sends search
 * calls to it, so a test can search through either. With the in-process vector index the
 * search replica keeps its own folder, as a pod keeps its own /tmp. A third graph process
 * and two gateways over the three graph processes (GRAPH_REPLICAS), one routing a tenant's
 * calls to one replica and one taking them in turn, compare the two routings.
 */
export function withReplicas(specs: ServiceSpec[], basePort: number): ServiceSpec[] {
  const copy = (of: string, name: string, offset: number, env: Record<string, string> = {}): ServiceSpec => {
    const spec = specs.find((s) => s.name === of);
    if (!spec) throw new Error(`no ${of} service to replicate`);
    const ports = { PORT: String(basePort + offset), METRICS_PORT: String(basePort + 50 + offset) };
    return Object.assign(
      {},
      spec,
      { name, port: basePort + offset, migrates: false, optional: true },
      'metricsPort' in spec ? { metricsPort: basePort + 50 + offset } : {},
      {
        env: {
          ...spec.env,
          PORT: ports.PORT,
          ...('METRICS_PORT' in spec.env ? { METRICS_PORT: ports.METRICS_PORT } : {}),
          ...env,
        },
      },
    );
  };
  const vectorsDir = specs.find((s) => s.name === 'search')?.env['VECTORS_DIR'];
  const graphs = [2, 12, 14].map((offset) => `http://127.0.0.1:${basePort + offset}`).join(',');
  return [
    ...specs,
    copy('graph', 'graph-replica', 12),
    copy('gateway', 'gateway-replica', 13, { GRAPH_URL: `http://127.0.0.1:${basePort + 12}` }),
    copy('graph', 'graph-replica-3', 14),
    copy('gateway', 'gateway-graph-affine', 15, { GRAPH_REPLICAS: graphs, GRAPH_ROUTING: 'tenant' }),
    copy('gateway', 'gateway-graph-round-robin', 18, { GRAPH_REPLICAS: graphs, GRAPH_ROUTING: 'round-robin' }),
    copy('search', 'search-replica', 16, vectorsDir ? { VECTORS_DIR: `${vectorsDir}-replica` } : {}),
    copy('gateway', 'gateway-search-replica', 17, { SEARCH_URL: `http://127.0.0.1:${basePort + 16}` }),
  ];
}
