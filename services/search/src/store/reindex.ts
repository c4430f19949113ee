import { and, asc, eq, isNull, ne, sql } from 'drizzle-orm';
import type { DbOrTx } from '@kg/db';
import { documents } from './schema';

/** The live documents of a tenant (node id and the graph version the projection holds), by node id. */
export async function liveDocumentsOf(db: DbOrTx, tenantId: string) {
  return db
    .select({ nodeId: documents.nodeId, version: documents.version })
    .from(documents)
    .where(and(eq(documents.tenantId, tenantId), isNull(documents.deletedAt)))
    .orderBy(asc(documents.nodeId));
}

/** Whether search ever heard of the tenant: a document of it, live or a tombstone. */
export async function tenantHasDocuments(db: DbOrTx, tenantId: string): Promise<boolean> {
  const [row] = await db
    .select({ nodeId: documents.nodeId })
    .from(documents)
    .where(eq(documents.tenantId, tenantId))
    .limit(1);
  return row !== undefined;
}

/** Every tenant with a live document, in id order (`npm run reindex -- --all`). */
export async function tenantsWithDocuments(db: DbOrTx): Promise<string[]> {
  const rows = await db
    .selectDistinct({ tenantId: documents.tenantId })
    .from(documents)
    .where(isNull(documents.deletedAt))
    .orderBy(asc(documents.tenantId));
  return rows.map((r) => r.tenantId);
}

/**
 * Records the vector a re-index stored for `version` of a node. When the document moved on
 * meanwhile (a newer event arrived, and the running indexer may already have stored that
 * version's vector, which the re-index has just overwritten with the older one; or the node
 * was deleted and its vector removed), the document is made pending again instead, so the
 * indexer embeds its current version once more (or removes the vector). Returns false then.
 */
export async function markReindexed(
  db: DbOrTx,
  doc: { tenantId: string; nodeId: string; version: number },
  model: string,
  payloadVersion: number,
): Promise<boolean> {
  const same = and(eq(documents.tenantId, doc.tenantId), eq(documents.nodeId, doc.nodeId));
  const marked = await db
    .update(documents)
    .set({
      embeddedVersion: doc.version,
      embeddedModel: model,
      embeddedPayload: payloadVersion,
      embedFailures: 0,
      embedFailedModel: null,
      embedRetryAt: null,
    })
    .where(and(same, eq(documents.version, doc.version)))
    .returning({ nodeId: documents.nodeId });
  if (marked.length === 1) return true;
  // A live document: no vector recorded, so the indexer embeds it. A tombstone (deleted
  // meanwhile): a vector recorded, so the indexer deletes the one the re-index stored.
  await db
    .update(documents)
    .set({
      embeddedVersion: sql`case when ${documents.deletedAt} is null then null else ${documents.version} end`,
      embeddedModel: sql`case when ${documents.deletedAt} is null then null else ${model} end`,
      embeddedPayload: null,
    })
    .where(and(same, ne(documents.version, doc.version)));
  return false;
}

/**
 * The vector collection of `model` was just made anew (lost: a Qdrant volume replaced, an
 * in-process index's files gone), so no live document has a vector in it whatever its row says:
 * they become pending, and the indexer embeds them all again. Returns how many.
 */
export async function forgetEmbeddings(db: DbOrTx, model: string): Promise<number> {
  const rows = await db
    .update(documents)
    .set({ embeddedVersion: null, embeddedModel: null, embeddedPayload: null })
    .where(and(eq(documents.embeddedModel, model), isNull(documents.deletedAt)))
    .returning({ nodeId: documents.nodeId });
  return rows.length;
}
