import { z } from 'zod';
import { env } from '@kg/config';
import { addressAllowlistEnv } from '@kg/service-kit';

const ms = env.positiveInt;

/**
 * The pipeline's settings, the same in both modes (the one-process host spreads them into its
 * own schema). Defaults suit one worker with two cores.
 */
export const pipelineEnv = {
  /** Captures processed at once by one worker process. */
  INGEST_CONCURRENCY: ms(2),
  /** Runs accepted beyond those in progress; more waits (the consumer stops taking messages). */
  INGEST_QUEUE_LIMIT: ms(16),
  /**
   * Runs taken from the bus that wait for their host (FETCH_MAX_PER_HOST of its runs in the
   * worker already), holding no place and no claim; more waits (the consumer stops taking messages).
   */
  INGEST_HOST_PARKED_LIMIT: ms(10_000),
  /** Limit on one attempt of one stage (extract: its sandbox's limits, start-up included, when longer). */
  INGEST_STAGE_TIMEOUT_MS: ms(60_000),
  /** Attempts of one stage inside one claim (retryable failures only), with a growing pause. */
  INGEST_STAGE_ATTEMPTS: ms(3),
  INGEST_RETRY_BACKOFF_MS: ms(500),
  /** Claims of one run (after crashes or non-final failures) before the capture is `failed`. */
  INGEST_MAX_CLAIMS: ms(3),
  /** How long a claim holds without news; every recorded stage renews it. */
  INGEST_LEASE_MS: ms(300_000),
  /** Between two sweeps for stuck captures. */
  INGEST_SWEEP_INTERVAL_MS: ms(30_000),
  /** A capture pending this long, or processing this long past its lease, is re-queued. */
  INGEST_SWEEP_AFTER_MS: ms(60_000),
  FETCH_CONNECT_TIMEOUT_MS: ms(5000),
  FETCH_TIMEOUT_MS: ms(20_000),
  FETCH_MAX_BYTES: ms(10 * 1024 * 1024),
  FETCH_MAX_REDIRECTS: z.coerce.number().int().min(0).max(20).default(5),
  /** Fetches of one host at once, across every worker replica (shared through Redis in the distributed mode). */
  FETCH_MAX_PER_HOST: z.coerce.number().int().min(1).max(64).default(2),
  /** Least time between two request starts to one host, across replicas; 0: none. */
  FETCH_HOST_INTERVAL_MS: z.coerce.number().int().min(0).max(60_000).default(500),
  /** Addresses or CIDRs the fetch may reach although private, loopback, link-local… (none by default). */
  FETCH_ALLOWLIST: addressAllowlistEnv(),
  /** Parsers of untrusted content (PDF, DOCX, DOC, HTML, images) run in sandbox processes, at most this many at once. */
  EXTRACT_SANDBOX_PROCESSES: ms(2),
  /** Resident memory (and V8 heap) of one sandbox process, MiB; the kernel's address-space limit is this plus 3 GiB of reservations. */
  EXTRACT_MEMORY_LIMIT_MB: z.coerce.number().int().min(64).max(65_536).default(256),
  /** Wall time of one extraction in the sandbox (DOCX, DOC, HTML); the kernel's CPU limit is this plus 5 s. */
  EXTRACT_TIMEOUT_MS: ms(30_000),
  /** Markdown (and metadata) one extraction may produce, bytes. */
  EXTRACT_OUTPUT_MAX_BYTES: ms(20 * 1024 * 1024),
  /** Wall time of one PDF extraction in the sandbox. */
  PDF_TIMEOUT_MS: ms(30_000),
  /** OCR of images with tesseract.js and its shipped English model. */
  OCR_ENABLED: env.bool(true),
  /** Wall time of one image extraction (model load and OCR) in the sandbox. */
  OCR_TIMEOUT_MS: ms(30_000),
  /** Inflated bytes a DOCX may declare, and may really inflate to, counted as it inflates. */
  DOCX_MAX_INFLATED_BYTES: ms(100 * 1024 * 1024),
  DOCX_MAX_ENTRIES: ms(5000),
  /** Inflated bytes per compressed byte a DOCX part may reach once past 1 MiB (deflate bombs reach ~1,000). */
  DOCX_MAX_INFLATION_RATIO: ms(100),
  /** OpenAI-compatible chat endpoint (…/v1) for summaries and tags; the extractive method without it. */
  LLM_BASE_URL: z.url().optional(),
  LLM_MODEL: z.string().min(1).optional(),
  LLM_API_KEY: z.string().min(1).optional(),
  LLM_TIMEOUT_MS: ms(60_000),
  SUMMARY_SENTENCES: ms(3),
  SUMMARY_MAX_TAGS: z.coerce.number().int().min(0).max(64).default(8),
};

export const pipelineConfigSchema = z.object(pipelineEnv);
export type PipelineConfig = z.infer<typeof pipelineConfigSchema>;

/** Settings that only hold together (use with superRefine). */
export function checkPipeline(c: PipelineConfig, ctx: z.RefinementCtx): void {
  if (c.LLM_BASE_URL && !c.LLM_MODEL)
    ctx.addIssue({ code: 'custom', path: ['LLM_MODEL'], message: 'required when LLM_BASE_URL is set' });
  if (c.INGEST_LEASE_MS <= c.INGEST_STAGE_TIMEOUT_MS)
    ctx.addIssue({ code: 'custom', path: ['INGEST_LEASE_MS'], message: 'must be longer than INGEST_STAGE_TIMEOUT_MS' });
}

/** Env of the ingest-worker service when it runs as its own process. */
export const ingestWorkerConfigSchema = z
  .object({
    // The worker keeps no state of its own (the captures service holds runs and leases): no database.
    HOST: env.serviceBase.HOST,
    METRICS_PORT: env.serviceBase.METRICS_PORT,
    MEMORY_REDUCE_INTERVAL_MS: env.serviceBase.MEMORY_REDUCE_INTERVAL_MS,
    SHUTDOWN_DRAIN_MS: env.serviceBase.SHUTDOWN_DRAIN_MS,
    LOG_LEVEL: env.serviceBase.LOG_LEVEL,
    INTERNAL_SIGNING_KEY: env.serviceBase.INTERNAL_SIGNING_KEY,
    INTERNAL_PUBLIC_KEYS: env.serviceBase.INTERNAL_PUBLIC_KEYS,
    PORT: env.port(3007),
    /** capture.queued arrives on kg.captures.v1. */
    ...env.kafka,
    CAPTURES_URL: env.url(),
    GRAPH_URL: env.url(),
    SEARCH_URL: env.url(),
    PEER_TIMEOUT_MS: ms(10_000),
    /** Per-host fetch limits are shared by the replicas through Redis. */
    ...env.redis,
    ...pipelineEnv,
  })
  .superRefine(env.checkKafka)
  .superRefine(checkPipeline);
export type IngestWorkerConfig = z.infer<typeof ingestWorkerConfigSchema>;
