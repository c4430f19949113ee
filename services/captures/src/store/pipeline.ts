import { and, asc, desc, eq, inArray } from 'drizzle-orm';
import type { DbOrTx } from '@kg/db';
import { activity, runs, stages } from './schema';

export type RunRow = typeof runs.$inferSelect;
export type StageRow = typeof stages.$inferSelect;
export type ActivityRow = typeof activity.$inferSelect;

export async function insertRun(db: DbOrTx, row: typeof runs.$inferInsert): Promise<RunRow> {
  const [created] = await db.insert(runs).values(row).returning();
  return created!;
}

export async function findRun(db: DbOrTx, captureId: string, runId: string): Promise<RunRow | null> {
  const [row] = await db
    .select()
    .from(runs)
    .where(and(eq(runs.captureId, captureId), eq(runs.id, runId)));
  return row ?? null;
}

export async function updateRun(db: DbOrTx, runId: string, patch: Partial<typeof runs.$inferInsert>): Promise<void> {
  await db.update(runs).set(patch).where(eq(runs.id, runId));
}

/** Marks every unfinished run of the capture but `keep` superseded. */
export async function supersedeRuns(db: DbOrTx, captureId: string, now: Date): Promise<void> {
  await db
    .update(runs)
    .set({ status: 'superseded', finishedAt: now })
    .where(and(eq(runs.captureId, captureId), inArray(runs.status, ['queued', 'processing'])));
}

export function runsOf(db: DbOrTx, tenantId: string, captureId: string): Promise<RunRow[]> {
  return db
    .select()
    .from(runs)
    .where(and(eq(runs.tenantId, tenantId), eq(runs.captureId, captureId)))
    .orderBy(asc(runs.createdAt), asc(runs.id));
}

/** Inserts a stage unless the run recorded it already; true when inserted. */
export async function insertStage(db: DbOrTx, row: typeof stages.$inferInsert): Promise<boolean> {
  const inserted = await db
    .insert(stages)
    .values(row)
    .onConflictDoNothing({ target: [stages.runId, stages.name] })
    .returning({ seq: stages.seq });
  return inserted.length > 0;
}

export function stagesOf(db: DbOrTx, tenantId: string, captureId: string): Promise<StageRow[]> {
  return db
    .select()
    .from(stages)
    .where(and(eq(stages.tenantId, tenantId), eq(stages.captureId, captureId)))
    .orderBy(asc(stages.seq));
}

export function stagesOfRun(db: DbOrTx, runId: string): Promise<StageRow[]> {
  return db.select().from(stages).where(eq(stages.runId, runId)).orderBy(asc(stages.seq));
}

/** The processed markdown of the run's latest stage that produced one. */
export async function latestMarkdown(db: DbOrTx, runId: string): Promise<string | null> {
  const rows = await db
    .select({ output: stages.output })
    .from(stages)
    .where(eq(stages.runId, runId))
    .orderBy(desc(stages.seq));
  for (const r of rows) if (typeof r.output['markdown'] === 'string') return r.output['markdown'];
  return null;
}

export async function insertActivity(db: DbOrTx, row: typeof activity.$inferInsert): Promise<void> {
  await db.insert(activity).values(row);
}

export function activityOf(db: DbOrTx, tenantId: string, captureId: string): Promise<ActivityRow[]> {
  return db
    .select()
    .from(activity)
    .where(and(eq(activity.tenantId, tenantId), eq(activity.captureId, captureId)))
    .orderBy(asc(activity.seq));
}
