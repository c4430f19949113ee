import { sql } from 'drizzle-orm';
import { bigint, boolean, index, integer, jsonb, pgSchema, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { createdAt, optionalTimestamp, outboxTable, tenantIdColumn, updatedAt } from '@kg/db';

export const captures = pgSchema('captures');

const STATUSES = ['pending', 'processing', 'processed', 'failed', 'archived', 'dismissed'] as const;
const CONTENT_TYPES = ['tweet', 'video', 'repo', 'article', 'pdf', 'audio', 'note', 'image'] as const;
const REASONS = ['created', 'retry', 'reingest', 'sweep'] as const;

export const items = captures.table(
  'items',
  {
    id: text().primaryKey(),
    tenantId: tenantIdColumn(),
    title: text().notNull(),
    url: text(),
    contentType: text({ enum: CONTENT_TYPES }).notNull(),
    why: text(),
    selectedText: text(),
    rawContent: text(),
    source: text({ enum: ['browser-extension', 'cli', 'api', 'mcp'] }).notNull(),
    status: text({ enum: STATUSES }).notNull().default('pending'),
    /** While archived or dismissed: the status unarchive returns the capture to. */
    restoreStatus: text({ enum: STATUSES }),
    metadata: jsonb().$type<Record<string, unknown>>().notNull().default({}),
    nodeIds: jsonb().$type<string[]>().notNull().default([]),
    error: text(),
    /** The processed content (GET /captures/:id/content?format=markdown). */
    markdown: text(),
    /** The uploaded file: blob key, detected MIME type, name and size (uploads only). */
    blobKey: text(),
    mimeType: text(),
    filename: text(),
    sizeBytes: bigint({ mode: 'number' }),
    /** The run the pipeline works on now; a claim names it. */
    currentRunId: text(),
    /** When the current run was (re)queued; a pending capture unclaimed for long is swept. */
    queuedAt: optionalTimestamp(),
    /** While processing: until when the worker's claim holds. */
    leaseUntil: optionalTimestamp(),
    /** Change counter: every write takes the next one (the `version` of its events). */
    version: integer().notNull().default(1),
    /** The bookmark import that made it (imports), if any: its admission counts them. */
    importId: text(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index('items_tenant_created_idx').on(t.tenantId, t.createdAt),
    index('items_import_status_idx')
      .on(t.importId, t.status)
      .where(sql`import_id is not null`),
    index('items_tenant_status_idx').on(t.tenantId, t.status),
    index('items_tenant_url_idx').on(t.tenantId, t.url),
    index('items_waiting_idx')
      .on(t.status, t.leaseUntil, t.queuedAt)
      .where(sql`status in ('pending', 'processing')`),
  ],
);

/** Pipeline runs: one per queueing (create, retry, reingest); a sweep re-queues the same run. */
export const runs = captures.table(
  'runs',
  {
    id: text().primaryKey(),
    tenantId: tenantIdColumn(),
    captureId: text()
      .notNull()
      .references(() => items.id, { onDelete: 'cascade' }),
    reason: text({ enum: REASONS }).notNull(),
    status: text({ enum: ['queued', 'processing', 'processed', 'failed', 'superseded'] })
      .notNull()
      .default('queued'),
    attempts: integer().notNull().default(0),
    error: text(),
    createdAt: createdAt(),
    startedAt: optionalTimestamp(),
    finishedAt: optionalTimestamp(),
  },
  (t) => [index('runs_capture_created_idx').on(t.captureId, t.createdAt)],
);

/** Provenance: each completed stage of a run, once per run and stage name. */
export const stages = captures.table(
  'stages',
  {
    seq: bigint({ mode: 'number' }).generatedAlwaysAsIdentity().primaryKey(),
    tenantId: tenantIdColumn(),
    captureId: text()
      .notNull()
      .references(() => items.id, { onDelete: 'cascade' }),
    runId: text()
      .notNull()
      .references(() => runs.id, { onDelete: 'cascade' }),
    name: text().notNull(),
    startedAt: timestamp({ withTimezone: true, mode: 'date' }).notNull(),
    finishedAt: timestamp({ withTimezone: true, mode: 'date' }).notNull(),
    model: text().notNull(),
    inputDigest: text().notNull(),
    output: jsonb().$type<Record<string, unknown>>().notNull(),
  },
  (t) => [uniqueIndex('stages_run_name_idx').on(t.runId, t.name), index('stages_capture_idx').on(t.captureId)],
);

/** The activity timeline, oldest first (by seq). */
export const activity = captures.table(
  'activity',
  {
    seq: bigint({ mode: 'number' }).generatedAlwaysAsIdentity().primaryKey(),
    id: text().notNull().unique(),
    tenantId: tenantIdColumn(),
    captureId: text()
      .notNull()
      .references(() => items.id, { onDelete: 'cascade' }),
    kind: text().notNull(),
    at: createdAt(),
    detail: jsonb().$type<Record<string, unknown>>().notNull().default({}),
  },
  (t) => [index('activity_capture_seq_idx').on(t.captureId, t.seq)],
);

export const outbox = outboxTable(captures);

/** A tenant's webhook endpoints (POST /webhooks). */
export const webhookEndpoints = captures.table(
  'webhook_endpoints',
  {
    id: text().primaryKey(),
    tenantId: tenantIdColumn(),
    url: text().notNull(),
    description: text(),
    eventTypes: jsonb().$type<string[]>().notNull(),
    enabled: boolean().notNull().default(true),
    disabledReason: text({ enum: ['by_user', 'gone', 'failing'] }),
    disabledAt: optionalTimestamp(),
    /** Start of the current run of failed attempts; null after a success. */
    failingSince: optionalTimestamp(),
    /** The signing secret (whsec_…): needed in clear to sign, so only this service's database holds it. */
    secret: text().notNull(),
    /** After a rotation, the previous secret signs too until previousSecretExpiresAt. */
    previousSecret: text(),
    previousSecretExpiresAt: optionalTimestamp(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index('webhook_endpoints_tenant_idx').on(t.tenantId, t.createdAt)],
);

/**
 * One event on its way to one endpoint: written when the event is consumed (once per endpoint
 * and message id, so a redelivered event adds nothing), delivered by the dispatcher.
 */
export const webhookDeliveries = captures.table(
  'webhook_deliveries',
  {
    id: text().primaryKey(),
    tenantId: tenantIdColumn(),
    endpointId: text()
      .notNull()
      .references(() => webhookEndpoints.id, { onDelete: 'cascade' }),
    /** The `webhook-id` header: the event's id, the same on every attempt. */
    messageId: text().notNull(),
    eventType: text().notNull(),
    /** The JSON body sent, exactly (it is what the signature covers). */
    body: text().notNull(),
    /** When the event happened (the `webhook-timestamp` is the attempt's time). */
    occurredAt: timestamp({ withTimezone: true, mode: 'date' }).notNull(),
    status: text({ enum: ['pending', 'delivered', 'failed'] })
      .notNull()
      .default('pending'),
    attempts: integer().notNull().default(0),
    nextAttemptAt: timestamp({ withTimezone: true, mode: 'date' }).notNull(),
    /** While a dispatcher sends it: until when its claim holds (a crashed one's claim expires). */
    leaseUntil: optionalTimestamp(),
    createdAt: createdAt(),
    finishedAt: optionalTimestamp(),
  },
  (t) => [
    uniqueIndex('webhook_deliveries_endpoint_message_idx').on(t.endpointId, t.messageId),
    index('webhook_deliveries_due_idx')
      .on(t.nextAttemptAt)
      .where(sql`status = 'pending'`),
    index('webhook_deliveries_finished_idx').on(t.finishedAt),
  ],
);

/** Every attempt of every delivery; the last 100 per endpoint are kept (GET /webhooks/:id/attempts). */
export const webhookAttempts = captures.table(
  'webhook_attempts',
  {
    seq: bigint({ mode: 'number' }).generatedAlwaysAsIdentity().primaryKey(),
    tenantId: tenantIdColumn(),
    endpointId: text()
      .notNull()
      .references(() => webhookEndpoints.id, { onDelete: 'cascade' }),
    deliveryId: text().notNull(),
    messageId: text().notNull(),
    eventType: text().notNull(),
    attempt: integer().notNull(),
    attemptedAt: timestamp({ withTimezone: true, mode: 'date' }).notNull(),
    outcome: text({ enum: ['succeeded', 'failed'] }).notNull(),
    httpStatus: integer(),
    latencyMs: integer().notNull(),
    error: text(),
    nextAttemptAt: optionalTimestamp(),
  },
  (t) => [index('webhook_attempts_endpoint_seq_idx').on(t.endpointId, t.seq)],
);

const IMPORT_STATUSES = ['uploading', 'queued', 'running', 'completed', 'failed', 'cancelled'] as const;

/**
 * Bookmark imports (POST /imports). `uploading` (internal, never shown) while the gateway stores
 * the file's parts; then queued → running → completed | failed | cancelled. The cursor
 * (`entriesDone`, `bytesRead`, the counts and errors) is written in the same transaction as
 * each batch of captures, so a restart resumes after the last committed batch.
 */
export const imports = captures.table(
  'imports',
  {
    id: text().primaryKey(),
    tenantId: tenantIdColumn(),
    status: text({ enum: IMPORT_STATUSES }).notNull().default('uploading'),
    format: text({ enum: ['netscape-html', 'pocket-csv', 'karakeep-json'] }),
    filename: text().notNull().default(''),
    sizeBytes: bigint({ mode: 'number' }).notNull().default(0),
    /** How many blob parts hold the file (`<tenant>/imports/<id>/<part>`). */
    parts: integer().notNull().default(0),
    para: boolean().notNull().default(false),
    source: text({ enum: ['browser-extension', 'cli', 'api', 'mcp'] })
      .notNull()
      .default('api'),
    /** Entries of the file (bookmarks and problems, in the parser's order) already handled. */
    entriesDone: integer().notNull().default(0),
    bytesRead: bigint({ mode: 'number' }).notNull().default(0),
    seen: integer().notNull().default(0),
    created: integer().notNull().default(0),
    duplicates: integer().notNull().default(0),
    skipped: integer().notNull().default(0),
    invalid: integer().notNull().default(0),
    errors: jsonb().$type<{ line: number; reason: string }[]>().notNull().default([]),
    failure: text(),
    /** When it was queued (start): imports run in this order, one per tenant at a time. */
    queuedAt: optionalTimestamp(),
    /** The runner holding it (a random token per claim) and until when. */
    leaseOwner: text(),
    leaseUntil: optionalTimestamp(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    finishedAt: optionalTimestamp(),
  },
  (t) => [
    index('imports_tenant_created_idx').on(t.tenantId, t.createdAt),
    index('imports_active_idx')
      .on(t.tenantId, t.queuedAt)
      .where(sql`status in ('uploading', 'queued', 'running')`),
  ],
);
