import { and, asc, count, desc, eq, inArray, isNotNull, lt, or, sql } from 'drizzle-orm';
import type { DbOrTx } from '@kg/db';
import { items } from './schema';

export type CaptureRow = typeof items.$inferSelect;
export type CaptureStatus = CaptureRow['status'];
export type CapturePatch = Partial<Omit<typeof items.$inferInsert, 'id' | 'tenantId' | 'version' | 'createdAt'>>;

export async function findCapture(db: DbOrTx, tenantId: string, id: string, lock = false): Promise<CaptureRow | null> {
  const q = db
    .select()
    .from(items)
    .where(and(eq(items.tenantId, tenantId), eq(items.id, id)));
  const [row] = lock ? await q.for('update') : await q;
  return row ?? null;
}

export async function insertCapture(db: DbOrTx, row: typeof items.$inferInsert): Promise<CaptureRow> {
  const [created] = await db.insert(items).values(row).returning();
  return created!;
}

/** Applies a change and takes the next version. */
export async function updateCapture(db: DbOrTx, row: CaptureRow, patch: CapturePatch, now: Date): Promise<CaptureRow> {
  const [updated] = await db
    .update(items)
    .set({ ...patch, updatedAt: now, version: sql`${items.version} + 1` })
    .where(and(eq(items.tenantId, row.tenantId), eq(items.id, row.id)))
    .returning();
  return updated!;
}

export async function deleteCapture(db: DbOrTx, tenantId: string, id: string): Promise<void> {
  await db.delete(items).where(and(eq(items.tenantId, tenantId), eq(items.id, id)));
}

/** A page of the tenant's captures, newest first. */
export async function listCaptures(
  db: DbOrTx,
  tenantId: string,
  opts: { status?: CaptureStatus; limit: number; offset: number },
): Promise<{ rows: CaptureRow[]; total: number }> {
  const where = and(eq(items.tenantId, tenantId), opts.status ? eq(items.status, opts.status) : undefined);
  const [rows, [total]] = await Promise.all([
    db
      .select()
      .from(items)
      .where(where)
      .orderBy(desc(items.createdAt), desc(items.id))
      .limit(opts.limit)
      .offset(opts.offset),
    db.select({ n: count() }).from(items).where(where),
  ]);
  return { rows, total: total?.n ?? 0 };
}

/** The tenant's most recent capture of this exact URL. */
export async function latestByUrl(db: DbOrTx, tenantId: string, url: string): Promise<CaptureRow | null> {
  const [row] = await db
    .select()
    .from(items)
    .where(and(eq(items.tenantId, tenantId), eq(items.url, url)))
    .orderBy(desc(items.createdAt), desc(items.id))
    .limit(1);
  return row ?? null;
}

export async function countByStatus(db: DbOrTx, tenantId: string): Promise<Record<string, number>> {
  const rows = await db
    .select({ status: items.status, n: count() })
    .from(items)
    .where(eq(items.tenantId, tenantId))
    .groupBy(items.status);
  return Object.fromEntries(rows.map((r) => [r.status, r.n]));
}

/** Bytes of the uploaded files a tenant keeps (the sizes recorded with each capture's file). */
export async function storedBytes(db: DbOrTx, tenantId: string): Promise<number> {
  const [row] = await db
    .select({ bytes: sql<string | null>`sum(${items.sizeBytes})` })
    .from(items)
    .where(and(eq(items.tenantId, tenantId), isNotNull(items.blobKey)));
  return Number(row?.bytes ?? 0);
}

/**
 * Captures of every tenant that wait too long: processing with a lease expired before
 * `before`, or pending and queued before `before`. Oldest first.
 */
/**
 * Marks pending captures whose current run is one of `runs` as queued at `at` (a worker holds
 * them); returns how many were still so. No version: nothing a reader sees changes.
 */
export async function markQueued(
  db: DbOrTx,
  runs: { tenantId: string; captureId: string; runId: string }[],
  at: Date,
): Promise<number> {
  if (runs.length === 0) return 0;
  // Run ids belong to one capture each: a capture whose current run is among them is one of the pairs.
  const touched = await db
    .update(items)
    .set({ queuedAt: at })
    .where(
      and(
        inArray(items.id, [...new Set(runs.map((r) => r.captureId))]),
        inArray(items.tenantId, [...new Set(runs.map((r) => r.tenantId))]),
        inArray(
          items.currentRunId,
          runs.map((r) => r.runId),
        ),
        eq(items.status, 'pending'),
      ),
    )
    .returning({ id: items.id });
  return touched.length;
}

export function waitingTooLong(db: DbOrTx, before: Date, limit: number) {
  return db
    .select({ tenantId: items.tenantId, id: items.id, status: items.status, runId: items.currentRunId })
    .from(items)
    .where(
      and(
        isNotNull(items.currentRunId),
        or(
          and(eq(items.status, 'processing'), lt(items.leaseUntil, before)),
          and(eq(items.status, 'pending'), lt(items.queuedAt, before)),
        ),
      ),
    )
    .orderBy(asc(items.updatedAt))
    .limit(limit);
}
