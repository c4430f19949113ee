import { z } from 'zod';
import {
  AppError,
  ById,
  Capture,
  CaptureActivityList,
  CaptureContentQuery,
  CaptureList,
  CaptureProvenance,
  CapturedUrl,
  CheckCaptureQuery,
  CreateCaptureInput,
  ListCapturesQuery,
  UploadCaptureInput,
  rateLimited,
} from '@kg/contracts';
import type { ConcurrencyLimiter, KvStore, RateLimiter } from '@kg/kv';
import type { GatewayHttpConfig } from '../config';
import { parsePart } from '../http/validate';
import type { UploadReadBounds } from '../http/upload-deadline';
import { ACCEPTED_TYPES, UploadGate, readUpload } from '../http/uploads';
import { defineRoute, noContent, ok, type Route } from './route';

const base = { tag: 'Captures', auth: 'required', service: 'captures' } as const;
const one = (description: string) => ({ status: 200, description, schema: Capture });

/** The optional fields of an upload, validated like any request field. */
const UploadFields = UploadCaptureInput.pick({ title: true, why: true }).strict();

/** The multipart body, for the OpenAPI document. */
const UploadForm = z.strictObject({
  file: z.string().meta({
    format: 'binary',
    description: `At most 25 MiB; accepted (detected from the content): ${ACCEPTED_TYPES.join(', ')}`,
  }),
  title: UploadCaptureInput.shape.title,
  why: UploadCaptureInput.shape.why,
});

/** Seconds a tenant's upload slot is held at most when its release is lost (a gateway that died). */
const UPLOAD_SLOT_LEASE_SECONDS = 600;
/** Retry-After of an upload refused because others are in progress (their end is not known). */
const UPLOAD_BUSY_RETRY_SECONDS = 5;

export interface UploadLimits {
  uploadMaxBytes: number;
  /** Uploads per minute, per tenant. */
  perMinute: RateLimiter;
  /** Uploads in progress per tenant, across replicas. */
  perTenant: ConcurrencyLimiter;
  /** Uploads in progress in this process. */
  perProcess: UploadGate;
  /** Bytes of uploaded files a tenant may keep. */
  quotaBytes: number;
  /** How long an upload's body may take to arrive (408 past it). */
  readDeadline: UploadReadBounds;
}

/** The upload limits of the gateway's settings; counts live in the kv store (Redis in the distributed mode). */
export const uploadLimits = (kv: KvStore, config: GatewayHttpConfig): UploadLimits => ({
  uploadMaxBytes: config.UPLOAD_MAX_BYTES,
  perMinute: kv.rateLimiter({
    name: 'uploads-tenant',
    points: config.UPLOAD_RATE_LIMIT_PER_MINUTE,
    durationSeconds: 60,
  }),
  perTenant: kv.concurrencyLimiter({
    name: 'uploads-in-progress',
    max: config.UPLOAD_CONCURRENCY_PER_TENANT,
    leaseSeconds: UPLOAD_SLOT_LEASE_SECONDS,
  }),
  perProcess: new UploadGate(config.UPLOAD_CONCURRENCY_PER_PROCESS),
  quotaBytes: config.UPLOAD_STORAGE_QUOTA_BYTES,
  readDeadline: {
    graceSeconds: config.UPLOAD_READ_TIMEOUT_SECONDS,
    minBytesPerSecond: config.UPLOAD_READ_MIN_BYTES_PER_SECOND,
  },
});

const mib = (bytes: number) => `${Math.round((bytes / 1024 / 1024) * 10) / 10} MiB`;
const overQuota = (used: number, quota: number) =>
  new AppError(
    'payload_too_large',
    `This upload would take the tenant's stored files past its quota of ${quota} bytes (${mib(quota)}); ` +
      `${used} bytes (${mib(used)}) are in use. Delete captures with files to make room.`,
  );

/**
 * Takes a slot of the tenant's uploads in progress, then one of this process's: 429 (per
 * tenant) or 503 (this process is full), each with Retry-After. Resolves to their release.
 */
async function uploadSlot(limits: UploadLimits, tenantId: string): Promise<() => Promise<void>> {
  const slot = await limits.perTenant.acquire(tenantId);
  if (!slot)
    throw rateLimited(
      UPLOAD_BUSY_RETRY_SECONDS,
      `This tenant already has ${limits.perTenant.max} uploads in progress (the limit); retry when one has finished`,
    );
  const leave = limits.perProcess.enter();
  if (!leave) {
    await slot.release();
    throw new AppError('unavailable', 'The server is receiving many uploads; retry shortly', {
      retryAfterSeconds: UPLOAD_BUSY_RETRY_SECONDS,
    });
  }
  return async () => {
    leave();
    await slot.release();
  };
}

/** Captures (SPEC.md section 4): submission, upload, reads and the lifecycle actions. */
export const captureRoutes = (limits: UploadLimits): Route[] => [
  defineRoute({
    ...base,
    method: 'post',
    path: '/captures',
    operationId: 'createCapture',
    summary: 'Submit a capture: stored as pending and queued for processing',
    body: CreateCaptureInput,
    rateLimit: 'captures',
    success: { status: 201, description: 'Created and queued', schema: Capture },
    async handle(req, peers) {
      return ok(await peers.captures.as(req.identity).create(req.body), 201);
    },
  }),
  defineRoute({
    ...base,
    method: 'post',
    path: '/captures/upload',
    operationId: 'uploadCapture',
    summary:
      'Upload a file as a capture (type detected from the content; 408 when the body arrives too slowly, 413 over 25 MiB or past the stored-bytes quota, 415 when not accepted, 429 past the upload limits)',
    multipart: UploadForm,
    success: { status: 201, description: 'Created and queued', schema: Capture },
    errors: [408, 429],
    async handle(req, peers) {
      const tenantId = req.identity!.tenantId;
      await req.limit([[limits.perMinute, tenantId]]);
      const release = await uploadSlot(limits, tenantId);
      try {
        const captures = peers.captures.as(req.identity);
        // Refused before the file is read when the quota is already used up.
        const { stored_bytes: used } = await captures.usage({});
        if (used >= limits.quotaBytes) throw overQuota(used, limits.quotaBytes);
        const upload = await readUpload(req.raw, {
          maxBytes: limits.uploadMaxBytes,
          allowedFields: ['title', 'why'],
          deadline: limits.readDeadline,
        });
        if (used + upload.bytes.length > limits.quotaBytes) throw overQuota(used, limits.quotaBytes);
        const fields = parsePart(UploadFields, upload.fields, 'body');
        const capture = await captures.upload({
          filename: upload.filename.slice(0, 255),
          mime_type: upload.mimeType,
          content_type: upload.contentType,
          bytes_base64: upload.bytes.toString('base64'),
          ...(fields.title !== undefined ? { title: fields.title } : {}),
          ...(fields.why !== undefined ? { why: fields.why } : {}),
        });
        return ok(capture, 201);
      } finally {
        await release();
      }
    },
  }),
  defineRoute({
    ...base,
    method: 'get',
    path: '/captures/check',
    operationId: 'checkCapturedUrl',
    summary: 'Was this URL captured? 200 with the latest capture of it, 404 if not',
    query: CheckCaptureQuery,
    success: { status: 200, description: 'Captured', schema: CapturedUrl },
    errors: [404],
    async handle(req, peers) {
      return ok(await peers.captures.as(req.identity).check(req.query));
    },
  }),
  defineRoute({
    ...base,
    method: 'get',
    path: '/captures',
    operationId: 'listCaptures',
    summary: 'List captures, newest first, optionally by status',
    query: ListCapturesQuery,
    success: { status: 200, description: 'A page of captures', schema: CaptureList },
    async handle(req, peers) {
      return ok(await peers.captures.as(req.identity).list(req.query));
    },
  }),
  defineRoute({
    ...base,
    method: 'get',
    path: '/captures/:id',
    operationId: 'getCapture',
    summary: 'Capture details with metadata and processing status',
    params: ById,
    success: one('The capture'),
    errors: [404],
    async handle(req, peers) {
      return ok(await peers.captures.as(req.identity).get({ id: req.params.id }));
    },
  }),
  defineRoute({
    ...base,
    method: 'get',
    path: '/captures/:id/content',
    operationId: 'getCaptureContent',
    summary:
      'The original content with its type (omitted format), or the processed markdown (format=markdown; 404 until processed)',
    params: ById,
    query: CaptureContentQuery,
    success: {
      status: 200,
      description: 'The content',
      media: [
        'text/markdown; charset=utf-8',
        'text/plain; charset=utf-8',
        ...ACCEPTED_TYPES.filter((t) => !t.startsWith('text/')),
      ],
    },
    errors: [404],
    async handle(req, peers) {
      const content = await peers.captures.as(req.identity).content({ id: req.params.id, ...req.query });
      return {
        status: 200,
        body: Buffer.from(content.bytes_base64, 'base64'),
        headers: { 'Content-Type': content.content_type },
      };
    },
  }),
  ...(['retry', 'reingest', 'archive', 'unarchive', 'dismiss'] as const).map((action) =>
    defineRoute({
      ...base,
      method: 'post',
      path: `/captures/:id/${action}`,
      operationId: `${action}Capture`,
      summary: ACTION_SUMMARY[action],
      params: ById,
      success: one(`The capture after ${action}`),
      errors: action === 'retry' || action === 'reingest' ? [404, 409] : [404],
      async handle(req, peers) {
        return ok(await peers.captures.as(req.identity)[action]({ id: req.params.id }));
      },
    }),
  ),
  defineRoute({
    ...base,
    method: 'delete',
    path: '/captures/:id',
    operationId: 'deleteCapture',
    summary: 'Delete a capture, its activity, provenance and stored file (the nodes it produced stay)',
    params: ById,
    success: { status: 204, description: 'Deleted' },
    errors: [404],
    async handle(req, peers) {
      await peers.captures.as(req.identity).delete({ id: req.params.id });
      return noContent();
    },
  }),
  defineRoute({
    ...base,
    method: 'get',
    path: '/captures/:id/activity',
    operationId: 'getCaptureActivity',
    summary: 'Timeline of the capture, oldest first',
    params: ById,
    success: { status: 200, description: 'The timeline', schema: CaptureActivityList },
    errors: [404],
    async handle(req, peers) {
      return ok(await peers.captures.as(req.identity).activity({ id: req.params.id }));
    },
  }),
  defineRoute({
    ...base,
    method: 'get',
    path: '/captures/:id/provenance',
    operationId: 'getCaptureProvenance',
    summary: 'Every processing run with its stages: timestamps, model, input digest and output',
    params: ById,
    success: { status: 200, description: 'The processing chain', schema: CaptureProvenance },
    errors: [404],
    async handle(req, peers) {
      return ok(await peers.captures.as(req.identity).provenance({ id: req.params.id }));
    },
  }),
];

const ACTION_SUMMARY = {
  retry: 'Re-queue a failed capture (409 unless failed)',
  reingest: 'Reprocess through the whole pipeline, replacing the nodes made before (409 while processing)',
  archive: 'Archive a capture (keeps its data; idempotent)',
  unarchive: 'Return an archived or dismissed capture to the status it had before (idempotent)',
  dismiss: 'Dismiss a capture (keeps its data; idempotent)',
} as const;
