import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { env } from '@kg/config';

/** clients/dashboard/dist of this checkout (the container image keeps the same layout). */
const DASHBOARD_DIST = fileURLToPath(new URL('../../../clients/dashboard/dist', import.meta.url));

/** Settings the gateway's HTTP surface needs in both modes. */
export const gatewayHttpSchema = z.object({
  PORT: env.port(8080),
  HOST: z.string().default('0.0.0.0'),
  /** Port of the separate Prometheus /metrics listener (not routed by the ingress). */
  METRICS_PORT: env.metricsPort(),
  /** Idle memory reducer (packages/service-kit/src/memory-reducer.ts); 0: off. */
  MEMORY_REDUCE_INTERVAL_MS: env.memoryReduceIntervalMs(),
  LOG_LEVEL: env.logLevel(),
  /** Dashboard origins allowed by CORS (comma-separated); none by default. */
  CORS_ORIGINS: env.list(),
  /** Largest JSON body accepted; larger bodies answer 413. */
  JSON_BODY_LIMIT_BYTES: env.positiveInt(2 * 1024 * 1024),
  /** Largest file POST /captures/upload accepts (25 MiB); larger answers 413, checked while streaming. */
  UPLOAD_MAX_BYTES: env.positiveInt(25 * 1024 * 1024),
  MAGIC_LINK_PER_EMAIL_PER_HOUR: env.positiveInt(5),
  MAGIC_LINK_PER_IP_PER_HOUR: env.positiveInt(30),
  /** GET /auth/oidc/start per client address per hour (each start holds a pending login in kv for 10 minutes). */
  OIDC_START_PER_IP_PER_HOUR: env.positiveInt(300),
  /** The public base address (dashboard origin): the OpenID callback URL, the dashboard redirect and the cookies' Secure rule. */
  PUBLIC_URL: z.url().default('http://localhost:8080'),
  /** Requests per minute on the graph endpoints, per tenant. */
  GRAPH_RATE_LIMIT_PER_MINUTE: env.positiveInt(600),
  /** Requests per minute on the graph endpoints, per credential (API key or sign-in session). */
  GRAPH_RATE_LIMIT_PER_CREDENTIAL_PER_MINUTE: env.positiveInt(600),
  /**
   * Semantic and hybrid searches (GET /nodes with a query), link suggestions and POST /context
   * per minute, per tenant: each asks the embedder (docs/API.md "Rate limits").
   */
  SEARCH_RATE_LIMIT_PER_MINUTE: env.positiveInt(240),
  /** The same, per credential (API key or sign-in session). */
  SEARCH_RATE_LIMIT_PER_CREDENTIAL_PER_MINUTE: env.positiveInt(120),
  /** POST /captures per minute, per tenant (each capture runs the ingest pipeline). */
  CAPTURE_RATE_LIMIT_PER_MINUTE: env.positiveInt(60),
  /** POST /captures per minute, per credential. */
  CAPTURE_RATE_LIMIT_PER_CREDENTIAL_PER_MINUTE: env.positiveInt(30),
  /** POST /captures/upload per minute, per tenant. */
  UPLOAD_RATE_LIMIT_PER_MINUTE: env.positiveInt(30),
  /** Uploads of one tenant in progress at once, across gateway replicas (429 beyond). */
  UPLOAD_CONCURRENCY_PER_TENANT: env.positiveInt(4),
  /** Uploads in progress at once in one gateway process, all tenants (each holds its file in memory; 503 beyond). */
  UPLOAD_CONCURRENCY_PER_PROCESS: env.positiveInt(8),
  /**
   * Upload read deadline (docs/API.md "Uploads"): an upload's body has this many seconds plus
   * one second per UPLOAD_READ_MIN_BYTES_PER_SECOND bytes it has sent so far; past it the
   * upload is abandoned (408, connection closed) and its slots are released.
   */
  UPLOAD_READ_TIMEOUT_SECONDS: z.coerce.number().int().min(1).max(3600).default(60),
  /** The slowest average pace an upload may keep after UPLOAD_READ_TIMEOUT_SECONDS (64 KiB/s). */
  UPLOAD_READ_MIN_BYTES_PER_SECOND: env.positiveInt(64 * 1024),
  /** Bytes of uploaded files a tenant may keep (1 GiB); an upload past it answers 413 until captures are deleted. */
  UPLOAD_STORAGE_QUOTA_BYTES: env.positiveInt(1024 * 1024 * 1024),
  /** Largest bookmark file POST /imports accepts (100 MiB; 413 beyond, checked while streaming). The captures service checks it too. */
  IMPORT_MAX_BYTES: env.positiveInt(100 * 1024 * 1024),
  /**
   * Reclassification jobs per minute, per tenant: POST /para (each new item starts one),
   * POST /para/{id}/match and POST /para/rescan share it (each scans every orphan node).
   */
  PARA_JOB_RATE_LIMIT_PER_MINUTE: env.positiveInt(20),
  /** GET /events streams open at once per credential (API key or sign-in session), across gateway replicas (429 beyond). */
  EVENT_STREAMS_PER_CREDENTIAL: z.coerce.number().int().min(1).max(1000).default(10),
  /** GET /events streams open at once per tenant, all its credentials together, across gateway replicas (429 beyond). */
  EVENT_STREAMS_PER_TENANT: z.coerce.number().int().min(1).max(1000).default(20),
  /**
   * How long a verified API key is trusted without asking the auth service (seconds; 0: ask
   * every time). A revocation reaches the gateway as an event and drops the key at once;
   * this is the bound when that event is late. At most 300 s.
   */
  API_KEY_CACHE_TTL_SECONDS: z.coerce.number().int().min(0).max(300).default(30),
  /** Most verified API keys held in memory per gateway process. */
  API_KEY_CACHE_MAX_ENTRIES: env.positiveInt(10_000),
  /**
   * Bytes of finished graph views (seed, neighbours) each gateway process keeps to answer the
   * same view asked again without the graph service; 0 turns it off. A write drops a tenant's
   * views at once (its view token changes before the write is answered).
   */
  VIEW_CACHE_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(0)
    .default(32 * 1024 * 1024),
  /** Longest a kept view is served (seconds, at most 300): the bound when a write could not change the token. */
  VIEW_CACHE_MAX_AGE_SECONDS: z.coerce.number().int().min(0).max(300).default(60),
  /** Express `trust proxy`: hops of proxies whose X-Forwarded-For is trusted (0: none). */
  TRUST_PROXY_HOPS: z.coerce.number().int().min(0).max(10).default(0),
  /** The built dashboard served at / (npm run build:dashboard writes it). */
  DASHBOARD_DIR: z.string().min(1).default(DASHBOARD_DIST),
});
export type GatewayHttpConfig = z.infer<typeof gatewayHttpSchema>;

/** Env of the gateway when it runs as its own process: its peers are reached over HTTP. */
export const gatewayConfigSchema = gatewayHttpSchema
  .extend({
    /** The gateway's own private Ed25519 JWK (JSON) that signs its calls to the services. */
    INTERNAL_SIGNING_KEY: env.internalSigningKey(),
    AUTH_URL: env.url(),
    GRAPH_URL: env.url(),
    /**
     * Graph replicas the gateway routes to (comma-separated base URLs), instead of GRAPH_URL
     * alone: outside Kubernetes. A tenant's graph calls go to one of them (GRAPH_ROUTING).
     */
    GRAPH_REPLICAS: env.list().pipe(z.array(z.url({ error: 'GRAPH_REPLICAS must be comma-separated http(s) URLs' }))),
    /**
     * A URL whose host name resolves to every live graph replica (a headless Service, e.g.
     * `http://kg-graph-replicas:4002`), resolved again every GRAPH_REPLICAS_REFRESH_MS;
     * GRAPH_URL while it resolves to nothing.
     */
    GRAPH_REPLICAS_DNS: env.url().optional(),
    GRAPH_REPLICAS_REFRESH_MS: env.positiveInt(5_000),
    /**
     * `tenant`: a tenant's graph calls go to the same replica (rendezvous hashing over the
     * live ones; the next one while it is down), so each replica keeps only its share of the
     * tenants' graphs warm. `round-robin`: any replica, in turn.
     */
    GRAPH_ROUTING: z.enum(['tenant', 'round-robin']).default('tenant'),
    PARA_URL: env.url(),
    CAPTURES_URL: env.url(),
    SEARCH_URL: env.url(),
    /** Shared store of rate limits and cursors across gateway replicas (REDIS_URL, REDIS_PASSWORD). */
    ...env.redis,
    /** Per-call timeout towards internal services. */
    PEER_TIMEOUT_MS: env.positiveInt(10_000),
    /**
     * On SIGTERM, how long the gateway keeps answering (readiness 503, every answer with
     * `Connection: close`) before it stops listening: behind a Kubernetes Service the signal
     * races the pod's removal from the endpoints (the chart sets 5000). 0: stop at once.
     */
    SHUTDOWN_DRAIN_MS: env.shutdownDrainMs(),
    /** GET /events: capture and node changes arrive from Kafka (a consumer group per replica). */
    ...env.kafka,
  })
  .superRefine(env.checkKafka)
  .superRefine((c, ctx) => {
    if (c.GRAPH_REPLICAS.length > 0 && c.GRAPH_REPLICAS_DNS)
      ctx.addIssue({
        code: 'custom',
        path: ['GRAPH_REPLICAS'],
        message: 'set GRAPH_REPLICAS or GRAPH_REPLICAS_DNS, not both',
      });
  });
export type GatewayConfig = z.infer<typeof gatewayConfigSchema>;
