/**
 * The seven services of the distributed mode and the env a deployment gives each one
 * (the same variables the Helm chart sets).
 */
export interface ServiceSpec {
  name: string;
  entry: string;
  port: number;
  /** Its /metrics listener (METRICS_PORT): base port + 50 + the service's offset. */
  metricsPort: number;
  /** Runs `main.ts migrate` before the first start. */
  migrates: boolean;
  /** Not started with the cluster; only on demand (the replicas of replicas.ts). */
  optional?: boolean;
  env: Record<string, string>;
}

export interface ClusterEnv {
  basePort: number;
  gatewayPort: number;
  databaseUrl: string;
  redisUrl: string;
  kafkaBrokers: string;
  /** Each service's own private Ed25519 JWK (JSON) that signs its internal tokens, by service name. */
  internalSigningKeys: Record<string, string>;
  /** The services' public keys, JSON `{service: JWK}` (INTERNAL_PUBLIC_KEYS of every service). */
  internalPublicKeys: string;
  signingKey: string;
  pepper: string;
  outboxDir: string;
  /** S3-compatible object storage of the captures service (MinIO from scripts/infra). */
  s3: { endpoint: string; bucket: string; accessKeyId: string; secretAccessKey: string };
  /**
   * The search service's vector index: a Qdrant server (QDRANT_URL; every replica shares it),
   * or the in-process index persisted under a folder (VECTORS_DIR; one process only).
   */
  vectors: { kind: 'qdrant'; url: string } | { kind: 'in-process'; dir: string };
  extra?: Record<string, string>;
}

export function serviceSpecs(c: ClusterEnv): ServiceSpec[] {
  const internalKey = (name: string) => {
    const key = c.internalSigningKeys[name];
    if (!key) throw new Error(`no internal signing key for ${name}`);
    return key;
  };
  const url = (offset: number) => `http://127.0.0.1:${c.basePort + offset}`;
  const common = {
    DATABASE_URL: c.databaseUrl,
    INTERNAL_PUBLIC_KEYS: c.internalPublicKeys,
    KAFKA_BROKERS: c.kafkaBrokers,
    HOST: '127.0.0.1',
    LOG_LEVEL: 'info',
    ...c.extra,
  };
  const svc = (name: string, offset: number, migrates: boolean, env: Record<string, string> = {}): ServiceSpec => ({
    name,
    entry: `services/${name}/src/main.ts`,
    port: c.basePort + offset,
    metricsPort: c.basePort + 50 + offset,
    migrates,
    env: {
      ...common,
      INTERNAL_SIGNING_KEY: internalKey(name),
      PORT: String(c.basePort + offset),
      METRICS_PORT: String(c.basePort + 50 + offset),
      ...env,
    },
  });
  return [
    svc('para', 4, true, { GRAPH_URL: url(2), REDIS_URL: c.redisUrl }),
    svc('auth', 1, true, {
      AUTH_SIGNING_KEY: c.signingKey,
      API_KEY_PEPPER: c.pepper,
      MAIL_TRANSPORT: 'outbox',
      OUTBOX_DIR: c.outboxDir,
      PUBLIC_URL: `http://127.0.0.1:${c.gatewayPort}`,
    }),
    svc('graph', 2, true, { PARA_URL: url(4), REDIS_URL: c.redisUrl }),
    svc('captures', 5, true, {
      BLOB_STORE: 's3',
      S3_ENDPOINT: c.s3.endpoint,
      S3_BUCKET: c.s3.bucket,
      S3_ACCESS_KEY_ID: c.s3.accessKeyId,
      S3_SECRET_ACCESS_KEY: c.s3.secretAccessKey,
      S3_FORCE_PATH_STYLE: 'true',
      S3_CREATE_BUCKET: 'true',
    }),
    svc('search', 6, true, {
      GRAPH_URL: url(2),
      ...(c.vectors.kind === 'qdrant' ? { QDRANT_URL: c.vectors.url } : { VECTORS_DIR: c.vectors.dir }),
    }),
    svc('ingest-worker', 7, false, {
      CAPTURES_URL: url(5),
      GRAPH_URL: url(2),
      SEARCH_URL: url(6),
      REDIS_URL: c.redisUrl,
    }),
    {
      name: 'gateway',
      entry: 'services/gateway/src/main.ts',
      port: c.gatewayPort,
      metricsPort: c.basePort + 50,
      migrates: false,
      env: {
        PORT: String(c.gatewayPort),
        METRICS_PORT: String(c.basePort + 50),
        HOST: '127.0.0.1',
        LOG_LEVEL: 'info',
        INTERNAL_SIGNING_KEY: internalKey('gateway'),
        PUBLIC_URL: `http://127.0.0.1:${c.gatewayPort}`,
        REDIS_URL: c.redisUrl,
        KAFKA_BROKERS: c.kafkaBrokers,
        AUTH_URL: url(1),
        GRAPH_URL: url(2),
        PARA_URL: url(4),
        CAPTURES_URL: url(5),
        SEARCH_URL: url(6),
        ...c.extra,
      },
    },
  ];
}
