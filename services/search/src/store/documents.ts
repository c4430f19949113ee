import { and, count, eq, isNotNull, isNull, lt } from 'drizzle-orm';
import type { DbOrTx } from '@kg/db';
import { documents } from './schema';

export interface DocumentInput {
  nodeId: string;
  title: string;
  summary: string;
  tags: string[];
  status: string;
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
