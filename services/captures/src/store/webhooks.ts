import { and, asc, count, desc, eq, inArray, isNotNull, isNull, lt, lte, min, notInArray, or, sql } from 'drizzle-orm';
import type { Db, DbOrTx } from '@kg/db';
import { webhookAttempts, webhookDeliveries, webhookEndpoints } from './schema';

export type EndpointRow = typeof webhookEndpoints.$inferSelect;
export type DeliveryRow = typeof webhookDeliveries.$inferSelect;
export type AttemptRow = typeof webhookAttempts.$inferSelect;
export type EndpointPatch = Partial<Omit<typeof webhookEndpoints.$inferInsert, 'id' | 'tenantId' | 'createdAt'>>;

/** Attempts kept per endpoint (GET /webhooks/:id/attempts). */
export const ATTEMPTS_KEPT = 100;

export async function insertEndpoint(db: DbOrTx, row: typeof webhookEndpoints.$inferInsert): Promise<EndpointRow> {
  const [created] = await db.insert(webhookEndpoints).values(row).returning();
  return created!;
}

export async function findEndpoint(db: DbOrTx, tenantId: string, id: string): Promise<EndpointRow | null> {
  const [row] = await db
    .select()
    .from(webhookEndpoints)
    .where(and(eq(webhookEndpoints.tenantId, tenantId), eq(webhookEndpoints.id, id)));
  return row ?? null;
}

export async function listEndpoints(db: DbOrTx, tenantId: string): Promise<EndpointRow[]> {
  return db
    .select()
    .from(webhookEndpoints)
    .where(eq(webhookEndpoints.tenantId, tenantId))
    .orderBy(asc(webhookEndpoints.createdAt), asc(webhookEndpoints.id));
}

export async function countEndpoints(db: DbOrTx, tenantId: string): Promise<number> {
  const [row] = await db.select({ n: count() }).from(webhookEndpoints).where(eq(webhookEndpoints.tenantId, tenantId));
  return row?.n ?? 0;
}

/** The ids and event types of the tenant's enabled endpoints. */
export async function enabledEndpoints(
  db: DbOrTx,
  tenantId: string,
): Promise<Array<Pick<EndpointRow, 'id' | 'eventTypes'>>> {
  return db
    .select({ id: webhookEndpoints.id, eventTypes: webhookEndpoints.eventTypes })
    .from(webhookEndpoints)
    .where(and(eq(webhookEndpoints.tenantId, tenantId), eq(webhookEndpoints.enabled, true)));
}

export async function updateEndpoint(
  db: DbOrTx,
  tenantId: string,
  id: string,
  patch: EndpointPatch,
): Promise<EndpointRow | null> {
  const [row] = await db
    .update(webhookEndpoints)
    .set(patch)
    .where(and(eq(webhookEndpoints.tenantId, tenantId), eq(webhookEndpoints.id, id)))
    .returning();
  return row ?? null;
}

export async function deleteEndpoint(db: DbOrTx, tenantId: string, id: string): Promise<boolean> {
  const gone = await db
    .delete(webhookEndpoints)
    .where(and(eq(webhookEndpoints.tenantId, tenantId), eq(webhookEndpoints.id, id)))
    .returning({ id: webhookEndpoints.id });
  return gone.length > 0;
}

/** Pending deliveries per endpoint of the tenant. */
export async function pendingCounts(db: DbOrTx, tenantId: string): Promise<Map<string, number>> {
  const rows = await db
    .select({ endpointId: webhookDeliveries.endpointId, n: count() })
    .from(webhookDeliveries)
    .where(and(eq(webhookDeliveries.tenantId, tenantId), eq(webhookDeliveries.status, 'pending')))
    .groupBy(webhookDeliveries.endpointId);
  return new Map(rows.map((r) => [r.endpointId, r.n]));
}

/** Queues deliveries; one per endpoint and message id (a redelivered event adds nothing). Returns how many are new. */
export async function insertDeliveries(
  db: DbOrTx,
  rows: Array<typeof webhookDeliveries.$inferInsert>,
): Promise<number> {
  if (rows.length === 0) return 0;
  const added = await db
    .insert(webhookDeliveries)
    .values(rows)
    .onConflictDoNothing()
    .returning({ id: webhookDeliveries.id });
  return added.length;
}

export interface Claimed {
  delivery: DeliveryRow;
  endpoint: EndpointRow;
}

/**
 * Takes up to `limit` due deliveries of enabled endpoints, oldest due first, and holds them
 * until `leaseUntil`: another dispatcher (another replica) does not take them, and one that
 * dies leaves them to be taken again once the lease expires. The claim is a conditional
 * update: of two dispatchers racing for a row, the second finds the lease set and skips it.
 */
export async function claimDue(
  db: Db,
  now: Date,
  leaseUntil: Date,
  limit: number,
  /** Endpoints not to take deliveries of now (those with enough attempts in flight). */
  skipEndpoints: readonly string[] = [],
): Promise<Claimed[]> {
  const free = and(
    eq(webhookDeliveries.status, 'pending'),
    lte(webhookDeliveries.nextAttemptAt, now),
    or(isNull(webhookDeliveries.leaseUntil), lt(webhookDeliveries.leaseUntil, now)),
  );
  const due = await db
    .select({ id: webhookDeliveries.id })
    .from(webhookDeliveries)
    .innerJoin(webhookEndpoints, eq(webhookEndpoints.id, webhookDeliveries.endpointId))
    .where(
      and(
        free,
        eq(webhookEndpoints.enabled, true),
        skipEndpoints.length ? notInArray(webhookDeliveries.endpointId, [...skipEndpoints]) : undefined,
      ),
    )
    .orderBy(asc(webhookDeliveries.nextAttemptAt))
    .limit(limit);
  if (due.length === 0) return [];
  const taken = await db
    .update(webhookDeliveries)
    .set({ leaseUntil })
    .where(
      and(
        inArray(
          webhookDeliveries.id,
          due.map((d) => d.id),
        ),
        free,
      ),
    )
    .returning();
  if (taken.length === 0) return [];
  const endpoints = await db
    .select()
    .from(webhookEndpoints)
    .where(inArray(webhookEndpoints.id, [...new Set(taken.map((d) => d.endpointId))]));
  const byId = new Map(endpoints.map((e) => [e.id, e]));
  return taken
    .filter((d) => byId.has(d.endpointId))
    .map((delivery) => ({ delivery, endpoint: byId.get(delivery.endpointId)! }))
    .sort((x, y) => x.delivery.nextAttemptAt.getTime() - y.delivery.nextAttemptAt.getTime());
}

/** When the next pending delivery of an enabled endpoint is due (null: none is pending). */
export async function nextDue(db: DbOrTx): Promise<Date | null> {
  const [row] = await db
    .select({ at: min(webhookDeliveries.nextAttemptAt) })
    .from(webhookDeliveries)
    .innerJoin(webhookEndpoints, eq(webhookEndpoints.id, webhookDeliveries.endpointId))
    .where(and(eq(webhookDeliveries.status, 'pending'), eq(webhookEndpoints.enabled, true)));
  return row?.at ?? null;
}

export async function finishDelivery(
  db: DbOrTx,
  id: string,
  patch: Partial<Pick<DeliveryRow, 'status' | 'nextAttemptAt' | 'finishedAt'>> & { attempts: number },
): Promise<boolean> {
  const done = await db
    .update(webhookDeliveries)
    .set({ ...patch, leaseUntil: null })
    .where(eq(webhookDeliveries.id, id))
    .returning({ id: webhookDeliveries.id });
  return done.length > 0;
}

/** Logs an attempt and keeps only the endpoint's last ATTEMPTS_KEPT. */
export async function logAttempt(db: DbOrTx, row: typeof webhookAttempts.$inferInsert): Promise<void> {
  await db.insert(webhookAttempts).values(row);
  await db.execute(sql`
    delete from ${webhookAttempts}
    where ${webhookAttempts.endpointId} = ${row.endpointId}
      and ${webhookAttempts.seq} <= (
        select ${webhookAttempts.seq} from ${webhookAttempts}
        where ${webhookAttempts.endpointId} = ${row.endpointId}
        order by ${webhookAttempts.seq} desc offset ${ATTEMPTS_KEPT} limit 1)`);
}

export async function attemptsOf(db: DbOrTx, tenantId: string, endpointId: string): Promise<AttemptRow[]> {
  return db
    .select()
    .from(webhookAttempts)
    .where(and(eq(webhookAttempts.tenantId, tenantId), eq(webhookAttempts.endpointId, endpointId)))
    .orderBy(desc(webhookAttempts.seq))
    .limit(ATTEMPTS_KEPT);
}

/** Deletes delivered and failed deliveries finished before `before`. */
export async function pruneFinished(db: DbOrTx, before: Date): Promise<number> {
  const gone = await db
    .delete(webhookDeliveries)
    .where(lt(webhookDeliveries.finishedAt, before))
    .returning({ id: webhookDeliveries.id });
  return gone.length;
}

/**
 * Records an attempt's outcome on its endpoint: a success ends the run of failures; a failure
 * starts one (or continues it), and disables the endpoint when the receiver answered 410 or
 * every attempt has failed for `failureWindowMs`. Returns the reason when this attempt disabled it.
 */
export async function noteEndpointOutcome(
  db: DbOrTx,
  id: string,
  outcome: { succeeded: boolean; gone: boolean; at: Date; failureWindowMs: number },
): Promise<'gone' | 'failing' | null> {
  const { at } = outcome;
  if (outcome.succeeded) {
    await db
      .update(webhookEndpoints)
      .set({ failingSince: null })
      .where(and(eq(webhookEndpoints.id, id), isNotNull(webhookEndpoints.failingSince)));
    return null;
  }
  const [row] = await db
    .update(webhookEndpoints)
    .set({ failingSince: sql`coalesce(${webhookEndpoints.failingSince}, ${at.toISOString()}::timestamptz)` })
    .where(eq(webhookEndpoints.id, id))
    .returning({ enabled: webhookEndpoints.enabled, failingSince: webhookEndpoints.failingSince });
  if (!row?.enabled) return null;
  const reason = outcome.gone
    ? 'gone'
    : row.failingSince && at.getTime() - row.failingSince.getTime() >= outcome.failureWindowMs
      ? 'failing'
      : null;
  if (reason)
    await db
      .update(webhookEndpoints)
      .set({ enabled: false, disabledReason: reason, disabledAt: at, updatedAt: at })
      .where(eq(webhookEndpoints.id, id));
  return reason;
}
