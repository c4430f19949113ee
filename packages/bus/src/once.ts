import type { Db, ProcessedEventsTable, Tx } from '@kg/db';

/**
 * Runs `effect` for an event at most once per consumer: the ledger row and the effect
 * commit together, and a redelivered event finds its row and is skipped.
 * Returns false when the event had already been handled.
 */
export async function handleOnce(
  db: Db,
  ledger: ProcessedEventsTable,
  consumer: string,
  eventId: string,
  effect: (tx: Tx) => Promise<void>,
): Promise<boolean> {
  return db.transaction(async (tx) => {
    const inserted = await tx
      .insert(ledger)
      .values({ consumer, eventId })
      .onConflictDoNothing()
      .returning({ eventId: ledger.eventId });
    if (inserted.length === 0) return false;
    await effect(tx);
    return true;
  });
}
