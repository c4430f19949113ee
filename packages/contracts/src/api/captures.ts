import { z } from 'zod';
import { query, mutation } from '../procedure';
import { ById, listOf } from '../common';
import {
  Capture,
  CaptureActivityList,
  CaptureList,
  CaptureProvenance,
  CapturedUrl,
  CheckCaptureQuery,
  CreateCaptureInput,
  ListCapturesQuery,
  PipelineClaim,
  PipelineClaimInput,
  PipelineCompleteInput,
  PipelineContent,
  PipelineFailInput,
  PipelineStageInput,
  QueueReason,
  StuckCapture,
  UploadCaptureInput,
} from '../captures';
import {
  CreateWebhookInput,
  RotateWebhookSecretInput,
  UpdateWebhookInput,
  Webhook,
  WebhookAttempt,
  WebhookCreated,
  WebhookSecretRotated,
  WebhookTestSent,
} from '../webhooks';
import {
  Import,
  ImportList,
  ListImportsQuery,
  OpenImportInput,
  OpenedImport,
  PutImportPartInput,
  StartImportInput,
} from '../imports';
import { serviceInfoApi } from './service-info';

const CaptureContent = z.object({
  /** The Content-Type to answer with. */
  content_type: z.string(),
  /** The body, base64 (binary uploads and text alike, so bytes come back exactly as sent). */
  bytes_base64: z.string(),
});

/** The captures service's tRPC contract. */
export const capturesApi = {
  ...serviceInfoApi,
  /** Capture counts of the caller's tenant, for GET /graph-health. */
  stats: query(
    'tenant',
    z.object({}),
    z.object({
      total: z.number().int(),
      pending: z.number().int(),
      processing: z.number().int(),
      failed: z.number().int(),
    }),
    ['gateway'],
  ),
  /** Bytes of uploaded files the caller's tenant keeps (every capture with a file), for the upload quota. */
  usage: query('tenant', z.object({}), z.object({ stored_bytes: z.number().int().min(0) }), ['gateway']),
  /** POST /captures: stores the capture as `pending` and queues a run (capture.queued, same transaction). */
  create: mutation('tenant', CreateCaptureInput, Capture, ['gateway']),
  /** POST /captures/upload: the gateway has checked size and type; stores the blob, then as create. */
  upload: mutation('tenant', UploadCaptureInput, Capture, ['gateway']),
  /** GET /captures/check: the latest capture of this URL, or NOT_FOUND. */
  check: query('tenant', CheckCaptureQuery, CapturedUrl, ['gateway']),
  list: query('tenant', ListCapturesQuery, CaptureList, ['gateway']),
  get: query('tenant', ById, Capture, ['gateway']),
  /** GET /captures/:id/content: the original (omitted format) or the processed markdown (NOT_FOUND until processed). */
  content: query('tenant', ById.extend({ format: z.enum(['markdown']).optional() }), CaptureContent, ['gateway']),
  /** Re-queues a failed capture (new run); CONFLICT unless `failed`. */
  retry: mutation('tenant', ById, Capture, ['gateway']),
  /** Re-runs every stage (new run; the worker replaces the nodes of earlier runs); CONFLICT while `processing`. */
  reingest: mutation('tenant', ById, Capture, ['gateway']),
  /** Keeps the data; remembers the status to return to. Idempotent. */
  archive: mutation('tenant', ById, Capture, ['gateway']),
  /** Back to the status the capture had before archive or dismiss. Idempotent. */
  unarchive: mutation('tenant', ById, Capture, ['gateway']),
  dismiss: mutation('tenant', ById, Capture, ['gateway']),
  /** Deletes the capture, its activity, provenance and blobs; the nodes it produced stay. */
  delete: mutation('tenant', ById, z.object({ deleted: z.literal(true) }), ['gateway']),
  activity: query('tenant', ById, CaptureActivityList, ['gateway']),
  provenance: query('tenant', ById, CaptureProvenance, ['gateway']),

  /**
   * The ingest worker's side. Every call names the run it works for (the `run_id` of the
   * capture.queued event); a call for a run that is no longer the capture's current one, or
   * that does not hold the claim, answers CONFLICT (409): the worker drops that run.
   * Tenant level: the worker acts for the event's tenant_id (identity of the system).
   */
  pipeline: {
    /**
     * Takes the run: status `processing`, a lease until `lease_until`, activity `processing_started`.
     * Claimable: `pending` with this run current, or `processing` with this run and an expired lease
     * (a crashed worker; `attempt` grows). Otherwise `{claimed: false, reason}` and nothing changes.
     * `completed_stages` lists what this run already recorded, so a resumed run skips them.
     */
    claim: mutation('tenant', PipelineClaimInput, PipelineClaim, ['ingest-worker']),
    /** The original content: the uploaded bytes (base64) with their MIME type, and/or raw_content. */
    content: query('tenant', z.object({ capture_id: PipelineClaimInput.shape.capture_id }), PipelineContent, [
      'ingest-worker',
    ]),
    /**
     * Records one completed stage in provenance and activity `stage_completed`; renews the lease.
     * Idempotent per run and stage name: recording the same stage again changes nothing.
     */
    recordStage: mutation('tenant', PipelineStageInput, z.object({ recorded: z.boolean() }), ['ingest-worker']),
    /** Ends the run: status `processed`, node_ids and markdown stored, activity `processed`. */
    complete: mutation('tenant', PipelineCompleteInput, Capture, ['ingest-worker']),
    /**
     * A stage failed. `final`: status `failed` with the error `<stage>: <error>` and activity `failed`.
     * Not final: back to `pending` (same run, lease released, activity `stage_failed`); the worker retries.
     */
    fail: mutation('tenant', PipelineFailInput, Capture, ['ingest-worker']),
    /**
     * Captures of every tenant that wait too long: `processing` whose lease expired more than
     * `older_than_ms` ago, and `pending` not claimed for `older_than_ms` since queued. Oldest first.
     */
    stuck: query(
      'service',
      z.object({ older_than_ms: z.number().int().min(0), limit: z.number().int().min(1).max(1000).default(100) }),
      z.object({ captures: z.array(StuckCapture) }),
      ['ingest-worker'],
    ),
    /**
     * Runs a worker holds in its hosts' lines (taken from the bus, not yet claimed): their
     * captures, still `pending` with that run current, count as queued now, so `stuck` does
     * not offer them for re-queueing while the worker keeps them. No version, event or
     * activity: nothing a person sees changes. `touched`: how many were still so.
     */
    waiting: mutation(
      'service',
      z.object({ runs: z.array(StuckCapture.pick({ tenant_id: true, capture_id: true, run_id: true })).max(1000) }),
      z.object({ touched: z.number().int().min(0) }),
      ['ingest-worker'],
    ),
    /**
     * Queues the capture's current run again (capture.queued with this reason, same run_id, so
     * completed stages are kept), if it is still pending or processing with an expired lease;
     * `requeued: false` when it moved on meanwhile. Activity `requeued`.
     */
    requeue: mutation(
      'tenant',
      z.object({ capture_id: PipelineClaimInput.shape.capture_id, reason: QueueReason.extract(['sweep']) }),
      z.object({ requeued: z.boolean(), run_id: z.string().nullable() }),
      ['ingest-worker'],
    ),
  },

  /**
   * Signed outbound webhooks of the caller's tenant (the captures service keeps the endpoints,
   * the deliveries and their log, and delivers). Another tenant's ids answer NOT_FOUND.
   */
  webhooks: {
    /** Checks the URL's form and that its host resolves to public addresses; the secret is in the answer only. */
    create: mutation('tenant', CreateWebhookInput, WebhookCreated, ['gateway']),
    list: query('tenant', z.object({}), listOf(Webhook), ['gateway']),
    get: query('tenant', ById, Webhook, ['gateway']),
    update: mutation('tenant', ById.extend({ changes: UpdateWebhookInput }), Webhook, ['gateway']),
    /** Deletes the endpoint, its pending deliveries and its log. */
    delete: mutation('tenant', ById, z.object({ deleted: z.literal(true) }), ['gateway']),
    /** A new secret; the previous one keeps signing too (a second signature) for `overlap_seconds`. */
    rotateSecret: mutation('tenant', ById.extend({ options: RotateWebhookSecretInput }), WebhookSecretRotated, [
      'gateway',
    ]),
    /** Queues a `webhook.test` delivery to this endpoint, whatever it subscribes to (a disabled endpoint gets it once enabled again). */
    test: mutation('tenant', ById, WebhookTestSent, ['gateway']),
    /** The endpoint's last 100 attempts, newest first. */
    attempts: query('tenant', ById, listOf(WebhookAttempt), ['gateway']),
  },

  /**
   * Bookmark imports of the caller's tenant (POST /imports). The gateway streams the file in
   * parts: `open` (RATE_LIMITED past IMPORT_MAX_ACTIVE queued or running), `putPart` for each
   * part in order, then `start` (INVALID when the format cannot be detected) or `abort`.
   * Another tenant's ids answer NOT_FOUND.
   */
  imports: {
    open: mutation('tenant', OpenImportInput, OpenedImport, ['gateway']),
    putPart: mutation('tenant', PutImportPartInput, z.object({ stored: z.literal(true) }), ['gateway']),
    start: mutation('tenant', StartImportInput, Import, ['gateway']),
    /** Drops an opened import whose upload failed, with its parts (nothing when it was started). */
    abort: mutation('tenant', ById, z.object({ aborted: z.boolean() }), ['gateway']),
    list: query('tenant', ListImportsQuery, ImportList, ['gateway']),
    get: query('tenant', ById, Import, ['gateway']),
    /** CONFLICT when it has already finished; the captures already made stay. */
    cancel: mutation('tenant', ById, Import, ['gateway']),
  },
} as const;

export type CaptureContent = z.infer<typeof CaptureContent>;
