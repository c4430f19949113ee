import { describe, expect, it } from 'vitest';
import { SERVICE_NAMES } from '@kg/contracts';
import { serviceSpecs, type ClusterEnv } from './services';
import { withReplicas } from './replicas';

const cluster = (vectors: ClusterEnv['vectors']): ClusterEnv => ({
  basePort: 18100,
  gatewayPort: 8080,
  databaseUrl: 'postgres://kg:kg@127.0.0.1:55432/kg',
  redisUrl: 'redis://127.0.0.1:56379',
  kafkaBrokers: '127.0.0.1:59092',
  internalSigningKeys: Object.fromEntries(SERVICE_NAMES.map((n) => [n, `{"kid":"${n}"}`])),
  internalPublicKeys: '{}',
  signingKey: '{}',
  pepper: 'p',
  outboxDir: '/tmp/x/outbox',
  s3: { endpoint: 'http://127.0.0.1:59000', bucket: 'b', accessKeyId: 'a', secretAccessKey: 's' },
  vectors,
});
const specs = (vectors: ClusterEnv['vectors']) => withReplicas(serviceSpecs(cluster(vectors)), 18100);
const env = (all: ReturnType<typeof specs>, name: string) => all.find((s) => s.name === name)?.env;

describe('search replicas of the distributed cluster', () => {
  it('on Qdrant: both search processes use the one Qdrant, no in-process folder; a gateway sends search calls to the replica', () => {
    const all = specs({ kind: 'qdrant', url: 'http://127.0.0.1:56333' });
    for (const name of ['search', 'search-replica']) {
      expect(env(all, name)).toMatchObject({ QDRANT_URL: 'http://127.0.0.1:56333' });
      expect(env(all, name)).not.toHaveProperty('VECTORS_DIR');
    }
    const replica = all.find((s) => s.name === 'search-replica')!;
    expect(replica).toMatchObject({ port: 18116, metricsPort: 18166, optional: true, migrates: false });
    expect(env(all, 'search-replica')).toMatchObject({ PORT: '18116', METRICS_PORT: '18166' });
    expect(env(all, 'gateway-search-replica')).toMatchObject({
      SEARCH_URL: 'http://127.0.0.1:18116',
      GRAPH_URL: 'http://127.0.0.1:18102',
      PORT: '18117',
    });
    expect(env(all, 'gateway')).toMatchObject({ SEARCH_URL: 'http://127.0.0.1:18106' });
    const ports = all.flatMap((s) => [s.port, s.metricsPort]);
    expect(new Set(ports).size).toBe(ports.length);
  });

  it('on the in-process index: each search process has a folder of its own, as a pod its own /tmp', () => {
    const all = specs({ kind: 'in-process', dir: '/tmp/x/search-vectors' });
    expect(env(all, 'search')).toMatchObject({ VECTORS_DIR: '/tmp/x/search-vectors' });
    expect(env(all, 'search-replica')).toMatchObject({ VECTORS_DIR: '/tmp/x/search-vectors-replica' });
    for (const name of ['search', 'search-replica']) expect(env(all, name)).not.toHaveProperty('QDRANT_URL');
  });

  it('a third graph process, and two gateways over the three graph processes, one per routing', () => {
    const all = specs({ kind: 'qdrant', url: 'http://127.0.0.1:56333' });
    const graphs = 'http://127.0.0.1:18102,http://127.0.0.1:18112,http://127.0.0.1:18114';
    expect(all.find((s) => s.name === 'graph-replica-3')).toMatchObject({
      port: 18114,
      optional: true,
      migrates: false,
    });
    expect(env(all, 'gateway-graph-affine')).toMatchObject({ GRAPH_REPLICAS: graphs, GRAPH_ROUTING: 'tenant' });
    expect(env(all, 'gateway-graph-round-robin')).toMatchObject({
      GRAPH_REPLICAS: graphs,
      GRAPH_ROUTING: 'round-robin',
    });
  });
});
