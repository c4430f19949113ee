import { z } from 'zod';

/** Reusable env-var field parsers: every env value arrives as a string. */
export const port = (fallback: number) => z.coerce.number().int().min(0).max(65535).default(fallback);
export const positiveInt = (fallback: number) => z.coerce.number().int().positive().default(fallback);
export const url = () => z.url();
export const bool = (fallback: boolean) =>
  z
    .enum(['true', 'false', '1', '0', 'yes', 'no'])
    .default(fallback ? 'true' : 'false')
    .transform((v) => v === 'true' || v === '1' || v === 'yes');
export const list = () =>
  z
    .string()
    .default('')
    .transform((v) =>
      v
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    );
export const logLevel = () => z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info');
export const secret = (minLength = 32) => z.string().min(minLength, `must be at least ${minLength} characters`);

/** Port of the separate Prometheus `/metrics` listener (never the public or service port; 0 picks a free port). */
export const metricsPort = () => port(9464);
/**
 * MEMORY_REDUCE_INTERVAL_MS: how often a process checks whether it is idle with memory to give
 * back (packages/service-kit/src/memory-reducer.ts); 0 turns the check off.
 */
export const memoryReduceIntervalMs = () => z.coerce.number().int().min(0).max(3_600_000).default(30_000);
/** SHUTDOWN_DRAIN_MS: after SIGTERM, how long a service keeps answering (readiness 503) before it stops listening. */
export const shutdownDrainMs = () => z.coerce.number().int().min(0).max(60_000).default(0);

const base64url32 = z.string().regex(/^[A-Za-z0-9_-]{43}$/, 'must be 32 bytes in base64url (43 characters)');
const jwkFields = {
  kty: z.literal('OKP'),
  crv: z.literal('Ed25519'),
  x: base64url32,
  kid: z.string().optional(),
  alg: z.literal('EdDSA').optional(),
};
/** A public Ed25519 JWK; one that carries the private part (`d`) is refused, so it never lands in a ConfigMap. */
const PublicJwk = z.object({
  ...jwkFields,
  d: z.never({ error: 'holds a private key (d): publish public keys only' }).optional(),
});
const PrivateJwk = z.object({ ...jwkFields, d: base64url32 });
export type PublicJwk = z.infer<typeof PublicJwk>;
export type PrivateJwk = z.infer<typeof PrivateJwk>;

/** Parses a JSON variable; a parse failure says what was expected and never echoes the value. */
const json = (what: string) =>
  z.string().transform((raw, ctx) => {
    try {
      return JSON.parse(raw) as unknown;
    } catch {
      ctx.addIssue({ code: 'custom', message: `must be JSON (${what})` });
      return z.NEVER;
    }
  });

/** This service's private Ed25519 JWK (JSON) that signs its internal tokens; from a Secret. */
export const internalSigningKey = () => json('a private Ed25519 JWK').pipe(PrivateJwk);

const ServiceKeys = z.preprocess((v) => (Array.isArray(v) ? v : [v]), z.array(PublicJwk).min(1));
/**
 * The public Ed25519 keys of the services that may call this one, by service name: a JSON
 * object `{"gateway": <JWK>, …}` (a value may be an array of JWKs during a rotation), or a
 * JWKS `{"keys": [<JWK with kid = service name>, …]}`. Normalised to name → keys.
 */
export const internalPublicKeys = () =>
  json('service name → public Ed25519 JWK, or a JWKS')
    .transform((v) => (isJwks(v) ? byKid(v.keys) : v))
    .pipe(
      z
        .record(z.string().regex(/^[a-z][a-z-]*$/, 'service names are lowercase words'), ServiceKeys)
        .refine((m) => Object.keys(m).length > 0, 'names no service'),
    );

const isJwks = (v: unknown): v is { keys: unknown[] } =>
  typeof v === 'object' && v !== null && Array.isArray((v as { keys?: unknown }).keys);
/** A JWKS grouped by `kid` (the service name); keys without a kid end up under "(no kid)" and fail the name rule. */
function byKid(keys: unknown[]): Record<string, unknown[]> {
  const out: Record<string, unknown[]> = {};
  for (const key of keys) {
    const kid = (key as { kid?: unknown } | null)?.kid;
    (out[typeof kid === 'string' ? kid : '(no kid)'] ??= []).push(key);
  }
  return out;
}

/** The PostgreSQL connection of a service that has a database. */
const database = {
  /** postgres:// URL; TLS through `?sslmode=` (disable, no-verify, require, verify-ca, verify-full). */
  DATABASE_URL: z.url().refine((u) => u.startsWith('postgres'), 'must be a postgres:// URL'),
  /** Server-side limit of one SQL statement (PostgreSQL statement_timeout). */
  DATABASE_STATEMENT_TIMEOUT_MS: positiveInt(30_000),
  /** Limit on opening one pool connection (TCP + TLS + authentication). */
  DATABASE_CONNECT_TIMEOUT_MS: positiveInt(10_000),
};

/**
 * Everything `main.ts migrate` reads (least privilege: the migrations Job gets no signing
 * key, pepper, peer or broker setting). Parsed instead of the service's full schema.
 */
export const migrateConfigSchema = z.object({ LOG_LEVEL: logLevel(), ...database });

/** Env every standalone service process reads (services extend it with their own fields). */
export const serviceBase = {
  PORT: port(3000),
  HOST: z.string().default('0.0.0.0'),
  METRICS_PORT: metricsPort(),
  MEMORY_REDUCE_INTERVAL_MS: memoryReduceIntervalMs(),
  SHUTDOWN_DRAIN_MS: shutdownDrainMs(),
  LOG_LEVEL: logLevel(),
  ...database,
  INTERNAL_SIGNING_KEY: internalSigningKey(),
  INTERNAL_PUBLIC_KEYS: internalPublicKeys(),
};

/** Comma-separated Kafka bootstrap servers, required by services that publish or consume events. */
export const kafkaBrokers = () =>
  z
    .string()
    .min(1)
    .transform((v) =>
      v
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    );

/** Redis settings beside REDIS_URL: a password kept out of the URL (REDIS_PASSWORD wins over one in the URL). */
export const redis = {
  /** redis:// or rediss:// (TLS) URL. */
  REDIS_URL: z.url().refine((u) => /^rediss?:\/\//i.test(u), 'must be a redis:// or rediss:// URL'),
  REDIS_PASSWORD: z.string().min(1).optional(),
};

const SASL_MECHANISMS = ['plain', 'scram-sha-256', 'scram-sha-512'] as const;

/** Kafka connection and topic settings of every service that has KAFKA_BROKERS (check them with `checkKafka`). */
export const kafka = {
  KAFKA_BROKERS: kafkaBrokers(),
  /** TLS towards the brokers. */
  KAFKA_SSL: bool(false),
  /** PEM of the CA that signed the brokers' certificates (default: the system's CAs); implies KAFKA_SSL. */
  KAFKA_SSL_CA: z.string().includes('-----BEGIN CERTIFICATE-----', 'must be a PEM certificate').optional(),
  KAFKA_SASL_MECHANISM: z.enum(SASL_MECHANISMS).optional(),
  KAFKA_SASL_USERNAME: z.string().min(1).optional(),
  KAFKA_SASL_PASSWORD: z.string().min(1).optional(),
  /** Replication factor of the topics (and `.dlq` topics) the services create; 3 in production. */
  KAFKA_REPLICATION_FACTOR: z.coerce.number().int().min(1).max(16).default(1),
};

type KafkaEnv = {
  KAFKA_SASL_MECHANISM?: string | undefined;
  KAFKA_SASL_USERNAME?: string | undefined;
  KAFKA_SASL_PASSWORD?: string | undefined;
};

/**
 * The Kafka settings that only hold together: a SASL mechanism needs a username and a
 * password, and credentials need a mechanism. Issues name the variable, never its value.
 * Use as `z.object({...}).superRefine(checkKafka)`.
 */
export function checkKafka(c: KafkaEnv, ctx: z.RefinementCtx): void {
  const need = (key: keyof KafkaEnv, why: string) =>
    ctx.addIssue({ code: 'custom', path: [key], message: `required ${why}` });
  if (c.KAFKA_SASL_MECHANISM) {
    if (!c.KAFKA_SASL_USERNAME) need('KAFKA_SASL_USERNAME', `when KAFKA_SASL_MECHANISM=${c.KAFKA_SASL_MECHANISM}`);
    if (!c.KAFKA_SASL_PASSWORD) need('KAFKA_SASL_PASSWORD', `when KAFKA_SASL_MECHANISM=${c.KAFKA_SASL_MECHANISM}`);
  } else if (c.KAFKA_SASL_USERNAME || c.KAFKA_SASL_PASSWORD) {
    need('KAFKA_SASL_MECHANISM', 'when KAFKA_SASL_USERNAME or KAFKA_SASL_PASSWORD is set');
  }
}

/** The local model's thread's default nice value (EMBEDDINGS_THREAD_NICE). */
export const EMBEDDINGS_THREAD_NICE = 10;

/**
 * The sentence-embedding provider of semantic search (packages/embeddings): `local` runs
 * all-MiniLM-L6-v2 in-process from EMBEDDINGS_MODEL_DIR; `openai` calls an OpenAI-compatible
 * `POST {EMBEDDINGS_BASE_URL}/v1/embeddings`. Check them with `checkEmbeddings`.
 */
export const embeddings = {
  EMBEDDINGS_PROVIDER: z.enum(['local', 'openai']).default('local'),
  /** Base URL of the OpenAI-compatible server, without `/v1` (required when the provider is `openai`). */
  EMBEDDINGS_BASE_URL: z.url().optional(),
  /** Model name sent to the server (required when the provider is `openai`). */
  EMBEDDINGS_MODEL: z.string().min(1).optional(),
  /** Bearer token of the server; from a Secret, never logged. */
  EMBEDDINGS_API_KEY: z.string().min(1).optional(),
  /** Directory holding the local model's `model.onnx` and `tokenizer.json` (default: the repository's `.tools/models/all-minilm-l6-v2`). */
  EMBEDDINGS_MODEL_DIR: z.string().min(1).optional(),
  /**
   * The local model's thread runs at this nice value (Linux; 0-19, 0: as the service), so the
   * service's requests get the cores first while the model indexes (docs/configuration.md "Search embeddings settings").
   */
  EMBEDDINGS_THREAD_NICE: z.coerce.number().int().min(0).max(19).default(EMBEDDINGS_THREAD_NICE),
};
export type EmbeddingsEnv = {
  EMBEDDINGS_PROVIDER: 'local' | 'openai';
  EMBEDDINGS_BASE_URL?: string | undefined;
  EMBEDDINGS_MODEL?: string | undefined;
  EMBEDDINGS_API_KEY?: string | undefined;
  EMBEDDINGS_MODEL_DIR?: string | undefined;
  EMBEDDINGS_THREAD_NICE: number;
};

/** The `openai` provider needs a base URL and a model. Use as `z.object({...}).superRefine(checkEmbeddings)`. */
export function checkEmbeddings(c: EmbeddingsEnv, ctx: z.RefinementCtx): void {
  if (c.EMBEDDINGS_PROVIDER !== 'openai') return;
  for (const key of ['EMBEDDINGS_BASE_URL', 'EMBEDDINGS_MODEL'] as const) {
    if (!c[key]) ctx.addIssue({ code: 'custom', path: [key], message: 'required when EMBEDDINGS_PROVIDER=openai' });
  }
}
