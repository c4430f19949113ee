import { and, asc, count, desc, eq, isNotNull, isNull, lt, lte, or, sql } from 'drizzle-orm';
import type { DbOrTx } from '@kg/db';
import { documents } from './schema';

export interface DocumentInput {
  nodeId: string;
  title: string;
  summary: string;
  tags: string[];
  status: string;
  paraItemIds: string[];
  updatedAt: Date;
  /** Graph version of the event this document comes from. */
  version: number;
}

/** A new version, or a vector made, clears the embedding failures of the document. */
const noFailures = { embedFailures: 0, embedFailedModel: null, embedRetryAt: null };

/** Only a newer version replaces what is stored (events may arrive late or out of order). */
const newer = (version: number) => lt(documents.version, version);

/** Upserts a node's document unless the stored one (document or tombstone) is as new or newer. */
export async function upsertDocument(db: DbOrTx, tenantId: string, doc: DocumentInput): Promise<boolean> {
  const rows = await db
    .insert(documents)
    .values({ tenantId, ...doc, indexedAt: new Date(), deletedAt: null })
    .onConflictDoUpdate({
      target: [documents.tenantId, documents.nodeId],
      set: {
        title: doc.title,
        summary: doc.summary,
        tags: doc.tags,
        status: doc.status,
        paraItemIds: doc.paraItemIds,
        updatedAt: doc.updatedAt,
        version: doc.version,
        deletedAt: null,
        indexedAt: new Date(),
        ...noFailures,
      },
      setWhere: newer(doc.version),
    })
    .returning({ nodeId: documents.nodeId });
  return rows.length === 1;
}

/**
 * Replaces a node's document with a tombstone at `version` (texts emptied), unless a
 * newer version is stored: an update that arrives after the delete finds it and is ignored.
 */
export async function tombstoneDocument(
  db: DbOrTx,
  tenantId: string,
  nodeId: string,
  version: number,
  at: Date,
): Promise<boolean> {
  const emptied = { title: '', summary: '', tags: [] as string[], status: 'deleted', updatedAt: at };
  const rows = await db
    .insert(documents)
    .values({ tenantId, nodeId, ...emptied, version, deletedAt: at, indexedAt: at })
    .onConflictDoUpdate({
      target: [documents.tenantId, documents.nodeId],
      set: { ...emptied, version, deletedAt: at, indexedAt: at, ...noFailures },
      setWhere: newer(version),
    })
    .returning({ nodeId: documents.nodeId });
  return rows.length === 1;
}

/** Tombstones older than `before` go: by then no late event of that node is still in flight. */
export async function pruneTombstones(db: DbOrTx, before: Date): Promise<number> {
  const rows = await db
    .delete(documents)
    .where(and(isNotNull(documents.deletedAt), lt(documents.deletedAt, before)))
    .returning({ nodeId: documents.nodeId });
  return rows.length;
}

const live = (tenantId: string) => and(eq(documents.tenantId, tenantId), isNull(documents.deletedAt));

export async function findDocument(db: DbOrTx, tenantId: string, nodeId: string) {
  const [row] = await db
    .select()
    .from(documents)
    .where(and(live(tenantId), eq(documents.nodeId, nodeId)));
  return row ?? null;
}

export async function countDocuments(db: DbOrTx, tenantId: string): Promise<number> {
  const [row] = await db.select({ n: count() }).from(documents).where(live(tenantId));
  return row?.n ?? 0;
}

/** Every stored row of a node, tombstone included (tests and diagnostics). */
export async function findDocumentRow(db: DbOrTx, tenantId: string, nodeId: string) {
  const [row] = await db
    .select()
    .from(documents)
    .where(and(eq(documents.tenantId, tenantId), eq(documents.nodeId, nodeId)));
  return row ?? null;
}

/** A document the indexer must act on: embed (live) or remove from the vector index (tombstone). */
export interface PendingDocument {
  tenantId: string;
  nodeId: string;
  version: number;
  deleted: boolean;
  /** Failed embedding attempts of this version with the current model. */
  failures: number;
  /** The point's vector is current; only its payload has an older layout (rewrite it, no re-embedding). */
  payloadOnly: boolean;
}

/**
 * Up to `limit` documents whose vector is missing, stale (older version) or made by another
 * model, tombstones whose vector is still indexed, and live documents whose vector is current
 * but whose payload layout is older than `payloadVersion` (payloadOnly); oldest change first. A live document
 * whose embedding failed with `model` waits until its `embed_retry_at` (before `now`), and
 * after `maxFailures` failures is left out until it changes or the model does.
 */
export async function findPendingDocuments(
  db: DbOrTx,
  model: string,
  payloadVersion: number,
  limit: number,
  retry: { now: Date; maxFailures: number } = { now: new Date(), maxFailures: Number.MAX_SAFE_INTEGER },
): Promise<PendingDocument[]> {
  const due = or(
    sql`${documents.embedFailedModel} is distinct from ${model}`,
    and(
      lt(documents.embedFailures, retry.maxFailures),
      or(isNull(documents.embedRetryAt), lte(documents.embedRetryAt, retry.now)),
    ),
  );
  const rows = await db
    .select({
      tenantId: documents.tenantId,
      nodeId: documents.nodeId,
      version: documents.version,
      deletedAt: documents.deletedAt,
      embedFailures: documents.embedFailures,
      embedFailedModel: documents.embedFailedModel,
      embeddedVersion: documents.embeddedVersion,
      embeddedModel: documents.embeddedModel,
    })
    .from(documents)
    .where(
      or(
        and(isNull(documents.deletedAt), sql`${documents.embeddedVersion} is distinct from ${documents.version}`, due),
        and(isNull(documents.deletedAt), sql`${documents.embeddedModel} is distinct from ${model}`, due),
        and(isNotNull(documents.deletedAt), isNotNull(documents.embeddedVersion)),
        and(
          isNull(documents.deletedAt),
          isNotNull(documents.embeddedVersion),
          sql`${documents.embeddedPayload} is distinct from ${payloadVersion}`,
          due,
        ),
      ),
    )
    .orderBy(asc(documents.indexedAt))
    .limit(limit);
  return rows.map((r) => ({
    tenantId: r.tenantId,
    nodeId: r.nodeId,
    version: r.version,
    deleted: r.deletedAt !== null,
    failures: r.embedFailedModel === model ? r.embedFailures : 0,
    payloadOnly: r.deletedAt === null && r.embeddedVersion === r.version && r.embeddedModel === model,
  }));
}

/**
 * Records a failed embedding attempt of `version` with `model`: `failures` attempts so far,
 * the next not before `retryAt` (null: no more until the node or the model changes).
 */
export async function recordEmbedFailure(
  db: DbOrTx,
  doc: { tenantId: string; nodeId: string; version: number },
  model: string,
  failures: number,
  retryAt: Date | null,
): Promise<void> {
  await db
    .update(documents)
    .set({ embedFailures: failures, embedFailedModel: model, embedRetryAt: retryAt })
    .where(
      and(eq(documents.tenantId, doc.tenantId), eq(documents.nodeId, doc.nodeId), eq(documents.version, doc.version)),
    );
}

/**
 * Records what the vector index now holds for a document, only if the document is still at
 * `version` (a newer event that arrived meanwhile leaves it pending); false when it is not.
 * `model` null: no vector. `payloadVersion`: the layout of the point's payload (ignored without a vector).
 */
export async function markEmbedded(
  db: DbOrTx,
  tenantId: string,
  nodeId: string,
  version: number,
  model: string | null,
  payloadVersion: number | null = null,
): Promise<boolean> {
  return (await markEmbeddedMany(db, tenantId, [{ nodeId, version }], model, payloadVersion)).size === 1;
}

/**
 * markEmbedded for several documents of one tenant in one statement (the indexer's batch; a
 * null model: tombstones whose points were removed): returns the node ids whose version still
 * matched; the others changed meanwhile.
 */
export async function markEmbeddedMany(
  db: DbOrTx,
  tenantId: string,
  docs: { nodeId: string; version: number }[],
  model: string | null,
  payloadVersion: number | null,
): Promise<Set<string>> {
  if (docs.length === 0) return new Set();
  const none = model === null;
  const rows = await db
    .update(documents)
    .set({
      embeddedVersion: none ? null : sql`${documents.version}`,
      embeddedModel: model,
      embeddedPayload: none ? null : payloadVersion,
      ...noFailures,
    })
    .where(
      and(
        eq(documents.tenantId, tenantId),
        or(...docs.map((d) => and(eq(documents.nodeId, d.nodeId), eq(documents.version, d.version)))),
      ),
    )
    .returning({ nodeId: documents.nodeId });
  return new Set(rows.map((r) => r.nodeId));
}

/**
 * After a vector write for a version the document no longer has (markEmbedded missed): the
 * index may now hold that older write over a newer one another indexer recorded meanwhile, or
 * a point of a node deleted meanwhile. The document is made pending again: a live one is
 * embedded again from graph's current text, a tombstone has its point removed again.
 */
export async function requeueDocument(db: DbOrTx, tenantId: string, nodeId: string): Promise<void> {
  await db
    .update(documents)
    .set({
      embeddedVersion: sql`case when ${documents.deletedAt} is null then null else -1 end`,
      embeddedPayload: null,
    })
    .where(and(eq(documents.tenantId, tenantId), eq(documents.nodeId, nodeId)));
}

/** Indexing progress: live documents, and those whose vector is current for `model`. */
export async function indexingProgress(db: DbOrTx, model: string, tenantId?: string) {
  const [row] = await db
    .select({
      total: count(),
      embedded:
        sql<number>`count(*) filter (where ${documents.embeddedVersion} = ${documents.version} and ${documents.embeddedModel} = ${model})`.mapWith(
          Number,
        ),
    })
    .from(documents)
    .where(tenantId === undefined ? isNull(documents.deletedAt) : live(tenantId));
  return { total: row?.total ?? 0, embedded: row?.embedded ?? 0 };
}

/** The tenant's most recently updated live documents, dismissed ones left out (context fallback). */
export async function recentDocuments(db: DbOrTx, tenantId: string, limit: number) {
  return db
    .select({ nodeId: documents.nodeId })
    .from(documents)
    .where(and(live(tenantId), sql`${documents.status} <> 'dismissed'`))
    .orderBy(desc(documents.updatedAt), asc(documents.nodeId))
    .limit(limit);
}
