import { z } from 'zod';
import { CaptureId, NodeId, TenantId, idSchema } from './ids';
import { PageQuery, Timestamp, listOf, pageOf, text } from './common';

/**
 * A web address as captures take it: http or https, a host, then anything but whitespace.
 * The pattern is the whole rule (the OpenAPI document states exactly what is accepted); the
 * ingest worker's fetch refuses a URL it cannot parse or may not reach, naming the stage.
 */
const HTTP_URL = /^https?:\/\/[^\s/?#]+[^\s]*$/;

export const CaptureContentType = z.enum(['tweet', 'video', 'repo', 'article', 'pdf', 'audio', 'note', 'image']);
export const CaptureSource = z.enum(['browser-extension', 'cli', 'api', 'mcp']);
export const CaptureStatus = z.enum(['pending', 'processing', 'processed', 'failed', 'archived', 'dismissed']);

export const CreateCaptureInput = z
  .object({
    title: text({ max: 500, trim: true }),
    url: text({ max: 2048 })
      .regex(HTTP_URL, 'must be an http:// or https:// URL')
      .meta({ description: 'An http:// or https:// URL, kept as sent', example: 'https://example.com/article' })
      .optional(),
    content_type: CaptureContentType,
    why: text({ max: 5000 }).optional(),
    selected_text: text({ max: 100_000 }).optional(),
    raw_content: text({ max: 5_000_000 }).optional(),
    source: CaptureSource,
  })
  .strict()
  .meta({ id: 'CreateCaptureInput' });

export const Capture = z
  .object({
    id: CaptureId,
    title: z.string(),
    url: z.string().nullable(),
    content_type: CaptureContentType,
    why: z.string().nullable(),
    selected_text: z.string().nullable(),
    source: CaptureSource,
    status: CaptureStatus,
    metadata: z.record(z.string(), z.unknown()),
    node_ids: z.array(NodeId),
    error: z.string().nullable(),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .meta({ id: 'Capture' });

export const ListCapturesQuery = PageQuery.extend({ status: CaptureStatus.optional() }).strict();
export const CheckCaptureQuery = z.object({ url: text({ min: 1, max: 2048 }) }).strict();

export const CaptureList = pageOf(Capture).meta({ id: 'CaptureList' });

/** GET /captures/check answers 200 with the capture that holds the URL (the most recent), 404 when none does. */
export const CapturedUrl = z
  .object({ url: z.string(), capture_id: CaptureId, status: CaptureStatus, captured_at: Timestamp })
  .meta({ id: 'CapturedUrl' });

/** What queued a pipeline run: a new capture, a retry, a reingest, or the sweeper finding it stuck. */
export const QueueReason = z.enum(['created', 'retry', 'reingest', 'sweep']);
export type QueueReason = z.infer<typeof QueueReason>;

export const CaptureActivityKind = z.enum([
  'created',
  'queued',
  'processing_started',
  'stage_completed',
  'stage_failed',
  'processed',
  'failed',
  'retried',
  'reingested',
  'requeued',
  'archived',
  'unarchived',
  'dismissed',
]);

export const CaptureActivity = z
  .object({
    id: z.string().meta({ description: 'act_… identifier' }),
    kind: CaptureActivityKind,
    at: Timestamp,
    detail: z.record(z.string(), z.unknown()).meta({
      description: 'What the kind needs: run_id, reason, stage, error, status, node_ids…',
    }),
  })
  .meta({ id: 'CaptureActivity' });
export const CaptureActivityList = listOf(CaptureActivity).meta({ id: 'CaptureActivityList' });

/** One pipeline stage as recorded in provenance. */
export const ProvenanceStage = z
  .object({
    name: text({ min: 1, max: 64 }).meta({ description: 'fetch, extract, summarise, link, …' }),
    started_at: Timestamp,
    finished_at: Timestamp,
    model: text({ min: 1, max: 200 }).meta({
      description: 'The model id, or the name and version of the deterministic method',
    }),
    input_digest: text({ min: 1, max: 200 }).meta({ description: 'sha256:… of the stage input' }),
    output: z.record(z.string(), z.unknown()).meta({
      description: 'What the stage produced; a string field `markdown` is the processed content of the capture',
    }),
  })
  .meta({ id: 'ProvenanceStage' });
export type ProvenanceStage = z.infer<typeof ProvenanceStage>;

export const RunStatus = z.enum(['queued', 'processing', 'processed', 'failed', 'superseded']);

export const CaptureProvenance = z
  .object({
    capture_id: CaptureId,
    runs: z.array(
      z.object({
        run_id: z.string(),
        reason: QueueReason,
        started_at: Timestamp.nullable(),
        finished_at: Timestamp.nullable(),
        status: RunStatus,
        error: z.string().nullable(),
        stages: z.array(ProvenanceStage),
      }),
    ),
  })
  .meta({ id: 'CaptureProvenance' });

/** Query of GET /captures/:id/content. */
export const CaptureContentQuery = z.object({ format: z.enum(['markdown']).optional() }).strict();

/** A file accepted by POST /captures/upload, as the gateway hands it to the captures service. */
export const UploadCaptureInput = z.object({
  filename: text({ min: 1, max: 255 }),
  /** The detected MIME type (file-type), or text/plain / text/markdown for valid UTF-8 text. */
  mime_type: text({ min: 1, max: 100 }),
  content_type: CaptureContentType,
  bytes_base64: z.base64().max(36_000_000),
  title: text({ max: 500, trim: true }).optional(),
  why: text({ max: 5000 }).optional(),
});

// ---- The ingest pipeline's view of a capture (callers: ingest-worker only) ----

export const PipelineClaimInput = z.object({
  capture_id: CaptureId,
  run_id: idSchema('run'),
  /** How long the claim holds without news (default 120 s); every recordStage renews it. */
  lease_ms: z.number().int().min(1000).max(3_600_000).optional(),
});

export const PipelineClaim = z.discriminatedUnion('claimed', [
  z.object({
    claimed: z.literal(true),
    capture: Capture,
    lease_until: Timestamp,
    /** How many times this run has been claimed (1 the first time; more after a crash or a non-final failure). */
    attempt: z.number().int().positive(),
    /** Stages this run already completed, in order: resume after the last one. */
    completed_stages: z.array(z.object({ name: z.string(), output: z.record(z.string(), z.unknown()) })),
  }),
  z.object({
    claimed: z.literal(false),
    /**
     * processed / dismissed / archived / failed: nothing to do; `superseded`: a newer run was queued
     * (drop this message); `leased`: another worker holds a live lease (until `lease_until`);
     * `not_found`: the capture was deleted.
     */
    reason: z.enum(['processed', 'dismissed', 'archived', 'failed', 'superseded', 'leased', 'not_found']),
    lease_until: Timestamp.nullable(),
  }),
]);
export type PipelineClaim = z.infer<typeof PipelineClaim>;

export const PipelineContent = z.object({
  /** MIME type of the original: the upload's detected type, `text/plain; charset=utf-8` for raw_content, null when the capture carries none (a URL to fetch). */
  content_type: z.string().nullable(),
  filename: z.string().nullable(),
  /** The uploaded file, base64 (uploads only). */
  bytes_base64: z.string().nullable(),
  /** The capture's raw_content (notes, pasted pages), when it has one. */
  raw_text: z.string().nullable(),
});

export const PipelineRunRef = z.object({ capture_id: CaptureId, run_id: idSchema('run') });

export const PipelineStageInput = PipelineRunRef.extend({ stage: ProvenanceStage });

/** The longest processed markdown a capture keeps (characters); the pipeline fails a longer extraction. */
export const CAPTURE_MARKDOWN_MAX_CHARS = 10_000_000;

export const PipelineCompleteInput = PipelineRunRef.extend({
  node_ids: z.array(NodeId).max(100),
  /** A better title found by the pipeline (e.g. the page's); replaces the capture's title. */
  title: text({ max: 500, trim: true }).optional(),
  /** The processed markdown; when omitted, the last recorded stage output holding a string `markdown` is used. */
  markdown: text({ max: CAPTURE_MARKDOWN_MAX_CHARS }).optional(),
  /** Merged into the capture's metadata (dimensions, page count, fetched URL, …). */
  metadata: z.record(z.string(), z.unknown()).optional(),
});

export const PipelineFailInput = PipelineRunRef.extend({
  stage: text({ min: 1, max: 64 }),
  error: text({ min: 1, max: 2000 }),
  /** true: the last attempt; the capture becomes `failed`. false: it goes back to `pending` for another attempt. */
  final: z.boolean(),
});

export const StuckCapture = z.object({
  tenant_id: TenantId,
  capture_id: CaptureId,
  run_id: z.string(),
  status: z.enum(['pending', 'processing']),
});

export type Capture = z.infer<typeof Capture>;
export type CaptureStatus = z.infer<typeof CaptureStatus>;
export type CreateCaptureInput = z.infer<typeof CreateCaptureInput>;
export type CapturedUrl = z.infer<typeof CapturedUrl>;
export type CaptureActivity = z.infer<typeof CaptureActivity>;
export type CaptureProvenance = z.infer<typeof CaptureProvenance>;
export type UploadCaptureInput = z.infer<typeof UploadCaptureInput>;
export type PipelineContent = z.infer<typeof PipelineContent>;
export type StuckCapture = z.infer<typeof StuckCapture>;
export type CaptureContentType = z.infer<typeof CaptureContentType>;

/** The kinds of capture whose content the pipeline fetches from their URL when none was sent. */
export const FETCHED_CONTENT_TYPES: ReadonlySet<CaptureContentType> = new Set(['article', 'pdf', 'image']);

/**
 * The host (lower case) the pipeline will fetch a capture's content from, or undefined when it
 * fetches nothing (no URL, content sent with the capture, a kind it does not fetch).
 */
export function fetchHostOf(c: { url: string | null; content_type: CaptureContentType; has_content: boolean }) {
  if (!c.url || c.has_content || !FETCHED_CONTENT_TYPES.has(c.content_type) || !URL.canParse(c.url)) return undefined;
  return new URL(c.url).hostname.toLowerCase() || undefined;
}
