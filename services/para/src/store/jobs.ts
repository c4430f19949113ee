import { and, asc, eq, inArray, lt, sql } from 'drizzle-orm';
import type { DbOrTx } from '@kg/db';
import { jobs } from './schema';

export type JobRow = typeof jobs.$inferSelect;

export async function insertJob(db: DbOrTx, row: typeof jobs.$inferInsert): Promise<JobRow> {
  const [created] = await db.insert(jobs).values(row).returning();
  return created!;
}

export async function findJob(db: DbOrTx, tenantId: string, id: string): Promise<JobRow | null> {
  const [row] = await db
    .select()
    .from(jobs)
    .where(and(eq(jobs.tenantId, tenantId), eq(jobs.id, id)));
  return row ?? null;
}

export async function setJobStatus(
  db: DbOrTx,
  id: string,
  status: JobRow['status'],
  now: Date,
  error: string | null = null,
): Promise<void> {
  const finished = status === 'done' || status === 'failed';
  await db
    .update(jobs)
    .set({ status, updatedAt: now, error, ...(finished ? { finishedAt: now } : {}) })
    .where(eq(jobs.id, id));
}

/** Records one batch: the position reached and the counts it adds. */
export async function advanceJob(
  db: DbOrTx,
  id: string,
  cursor: string,
  done: number,
  assigned: number,
  now: Date,
): Promise<void> {
  await db
    .update(jobs)
    .set({
      cursor,
      done: sql`${jobs.done} + ${done}`,
      assigned: sql`${jobs.assigned} + ${assigned}`,
      updatedAt: now,
    })
    .where(eq(jobs.id, id));
}

/** Unfinished jobs of any tenant untouched since `before` (their runner is gone). */
export function staleJobs(db: DbOrTx, before: Date, limit: number): Promise<JobRow[]> {
  return db
    .select()
    .from(jobs)
    .where(and(inArray(jobs.status, ['queued', 'running']), lt(jobs.updatedAt, before)))
    .orderBy(asc(jobs.updatedAt))
    .limit(limit);
}

export async function touchJob(db: DbOrTx, id: string, now: Date): Promise<void> {
  await db.update(jobs).set({ updatedAt: now }).where(eq(jobs.id, id));
}
