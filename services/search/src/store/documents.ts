import { and, count, eq, lt } from 'drizzle-orm';
import type { DbOrTx } from '@kg/db';
import { documents } from './schema';

export interface DocumentInput {
  nodeId: string;
  title: string;
  summary: string;
  tags: string[];
  status: string;
  updatedAt: Date;
}

/** Upserts a node's document unless a newer version is already stored (events may arrive late). */
export async function upsertDocument(db: DbOrTx, tenantId: string, doc: DocumentInput): Promise<void> {
  await db
    .insert(documents)
    .values({ tenantId, ...doc, indexedAt: new Date() })
    .onConflictDoUpdate({
      target: [documents.tenantId, documents.nodeId],
      set: {
        title: doc.title,
        summary: doc.summary,
        tags: doc.tags,
        status: doc.status,
        updatedAt: doc.updatedAt,
        indexedAt: new Date(),
      },
      setWhere: lt(documents.updatedAt, doc.updatedAt),
    });
}

export async function deleteDocument(db: DbOrTx, tenantId: string, nodeId: string): Promise<void> {
  await db.delete(documents).where(and(eq(documents.tenantId, tenantId), eq(documents.nodeId, nodeId)));
}

export async function findDocument(db: DbOrTx, tenantId: string, nodeId: string) {
  const [row] = await db
    .select()
    .from(documents)
    .where(and(eq(documents.tenantId, tenantId), eq(documents.nodeId, nodeId)));
  return row ?? null;
}

export async function countDocuments(db: DbOrTx, tenantId: string): Promise<number> {
  const [row] = await db.select({ n: count() }).from(documents).where(eq(documents.tenantId, tenantId));
  return row?.n ?? 0;
}
