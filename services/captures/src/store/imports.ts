import { and, asc, count, desc, eq, inArray, isNull, lt, ne, or, sql } from 'drizzle-orm';
import type { DbOrTx } from '@kg/db';
import { imports, items } from './schema';

export type ImportRow = typeof imports.$inferSelect;
export type ImportPatch = Partial<Omit<typeof imports.$inferInsert, 'id' | 'tenantId' | 'createdAt'>>;

/** Not finished: being uploaded, waiting or running (what IMPORT_MAX_ACTIVE counts). */
const ACTIVE = ['uploading', 'queued', 'running'] as const;
/** In line to run: started, not finished. */
const IN_LINE = ['queued', 'running'] as const;

export async function insertImport(db: DbOrTx, row: typeof imports.$inferInsert): Promise<ImportRow> {
  const [created] = await db.insert(imports).values(row).returning();
  return created!;
}

export async function findImport(db: DbOrTx, tenantId: string, id: string, lock = false): Promise<ImportRow | null> {
  const q = db
    .select()
    .from(imports)
    .where(and(eq(imports.tenantId, tenantId), eq(imports.id, id)));
  const [row] = lock ? await q.for('update') : await q;
  return row ?? null;
}

export async function updateImport(db: DbOrTx, tenantId: string, id: string, patch: ImportPatch): Promise<ImportRow> {
  const [row] = await db
    .update(imports)
    .set(patch)
    .where(and(eq(imports.tenantId, tenantId), eq(imports.id, id)))
    .returning();
  return row!;
}

export async function deleteImport(db: DbOrTx, tenantId: string, id: string): Promise<void> {
  await db.delete(imports).where(and(eq(imports.tenantId, tenantId), eq(imports.id, id)));
}

/** The tenant's imports not finished yet (uploading, queued, running). */
export async function countActive(db: DbOrTx, tenantId: string): Promise<number> {
  const [row] = await db
    .select({ n: count() })
    .from(imports)
    .where(and(eq(imports.tenantId, tenantId), inArray(imports.status, [...ACTIVE])));
  return row?.n ?? 0;
}

/** A page of the tenant's started imports, newest first (an upload in progress is not one yet). */
export async function listImports(
  db: DbOrTx,
  tenantId: string,
  opts: { limit: number; offset: number },
): Promise<{ rows: ImportRow[]; total: number }> {
  const where = and(eq(imports.tenantId, tenantId), ne(imports.status, 'uploading'));
  const [rows, [total]] = await Promise.all([
    db
      .select()
      .from(imports)
      .where(where)
      .orderBy(desc(imports.createdAt), desc(imports.id))
      .limit(opts.limit)
      .offset(opts.offset),
    db.select({ n: count() }).from(imports).where(where),
  ]);
  return { rows, total: total?.n ?? 0 };
}

const leaseFree = (now: Date) => or(isNull(imports.leaseUntil), lt(imports.leaseUntil, now));

/**
 * Claims the next import to run: among each tenant's first import in line (the earliest
 * queued that has not finished, running or not), one whose lease is free (never claimed, or
 * its runner died). So a tenant has one import running at a time, whatever the replicas; two
 * runners racing for the same row are settled by the conditional update (one gets it).
 */
export async function claimNext(db: DbOrTx, now: Date, leaseUntil: Date, owner: string): Promise<ImportRow | null> {
  const first = sql`not exists (
    select 1 from ${imports} o
    where o.tenant_id = ${imports.tenantId} and o.status in ('queued', 'running')
      and (o.queued_at, o.id) < (${imports.queuedAt}, ${imports.id}))`;
  const candidates = await db
    .select({ id: imports.id })
    .from(imports)
    .where(and(inArray(imports.status, [...IN_LINE]), leaseFree(now), first))
    .orderBy(asc(imports.queuedAt), asc(imports.id))
    .limit(5);
  for (const { id } of candidates) {
    const [taken] = await db
      .update(imports)
      .set({ status: 'running', leaseOwner: owner, leaseUntil, updatedAt: now })
      .where(and(eq(imports.id, id), inArray(imports.status, [...IN_LINE]), leaseFree(now)))
      .returning();
    if (taken) return taken;
  }
  return null;
}

/**
 * Writes the runner's progress if it still holds the import (running, its lease token): in the
 * batch's transaction, so a lost lease or a cancel rolls the batch back. Null when it lost it.
 */
export async function saveProgress(
  db: DbOrTx,
  id: string,
  owner: string,
  patch: ImportPatch,
): Promise<ImportRow | null> {
  const [row] = await db
    .update(imports)
    .set(patch)
    .where(and(eq(imports.id, id), eq(imports.leaseOwner, owner), eq(imports.status, 'running')))
    .returning();
  return row ?? null;
}

/** Imports whose upload was opened before `before` and never started (the gateway died): to drop. */
export async function staleUploads(db: DbOrTx, before: Date, limit = 20): Promise<ImportRow[]> {
  return db
    .select()
    .from(imports)
    .where(and(eq(imports.status, 'uploading'), lt(imports.createdAt, before)))
    .limit(limit);
}

/** Captures of this import still waiting for or in the pipeline (the admission counts them). */
export async function capturesInFlight(db: DbOrTx, tenantId: string, importId: string): Promise<number> {
  const [row] = await db
    .select({ n: count() })
    .from(items)
    .where(
      and(eq(items.tenantId, tenantId), eq(items.importId, importId), inArray(items.status, ['pending', 'processing'])),
    );
  return row?.n ?? 0;
}

/** Which of these URLs the tenant has a capture of (exactly as stored). */
export async function capturedUrls(db: DbOrTx, tenantId: string, urls: readonly string[]): Promise<Set<string>> {
  if (urls.length === 0) return new Set();
  const rows = await db
    .selectDistinct({ url: items.url })
    .from(items)
    .where(and(eq(items.tenantId, tenantId), inArray(items.url, [...urls])));
  return new Set(rows.map((r) => r.url!));
}
