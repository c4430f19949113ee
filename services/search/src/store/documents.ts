import { and, asc, count, desc, eq, isNotNull, isNull, lt, or, sql } from 'drizzle-orm';
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
      set: { ...emptied, version, deletedAt: at, indexedAt: at },
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
}

/**
 * Up to `limit` documents whose vector is missing, stale (older version) or made by another
 * model, and tombstones whose vector is still indexed; oldest change first.
 */
export async function findPendingDocuments(db: DbOrTx, model: string, limit: number): Promise<PendingDocument[]> {
  const rows = await db
    .select({
      tenantId: documents.tenantId,
      nodeId: documents.nodeId,
      version: documents.version,
      deletedAt: documents.deletedAt,
    })
    .from(documents)
    .where(
      or(
        and(isNull(documents.deletedAt), sql`${documents.embeddedVersion} is distinct from ${documents.version}`),
        and(isNull(documents.deletedAt), sql`${documents.embeddedModel} is distinct from ${model}`),
        and(isNotNull(documents.deletedAt), isNotNull(documents.embeddedVersion)),
      ),
    )
    .orderBy(asc(documents.indexedAt))
    .limit(limit);
  return rows.map((r) => ({
    tenantId: r.tenantId,
    nodeId: r.nodeId,
    version: r.version,
    deleted: r.deletedAt !== null,
  }));
}

/**
 * Records what the vector index now holds for a document, only if the document is still at
 * `version` (a newer event that arrived meanwhile leaves it pending). `model` null: no vector.
 */
export async function markEmbedded(
  db: DbOrTx,
  tenantId: string,
  nodeId: string,
  version: number,
  model: string | null,
): Promise<void> {
  await db
    .update(documents)
    .set({ embeddedVersion: model === null ? null : version, embeddedModel: model })
    .where(and(eq(documents.tenantId, tenantId), eq(documents.nodeId, nodeId), eq(documents.version, version)));
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
