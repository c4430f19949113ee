export {
  openDatabase,
  pgPoolConfig,
  postgresOptions,
  type PostgresOptions,
  type Database,
  type DatabaseOptions,
  type Db,
  type Tx,
  type DbOrTx,
} from './client';
export { PGLITE_SHARED_BUFFERS_MB } from './pglite-open';
export { newId } from './ids';
export { tenantIdColumn, createdAt, updatedAt, optionalTimestamp, iso, isoOrNull } from './columns';
export { outboxTable, type OutboxTable } from './outbox';
export {
  processedEventsTable,
  pruneProcessedEvents,
  PROCESSED_EVENTS_RETENTION_MS,
  type ProcessedEventsTable,
} from './processed-events';
export { inBackground, isBackground } from './priority';
export { createPump, type Pump } from './pump';
