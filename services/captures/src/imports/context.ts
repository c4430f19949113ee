import type { CapturesContext } from '../domain/context';

/** What the imports part of the captures service needs: the captures domain's context and its limits. */
export interface ImportsContext {
  captures: CapturesContext;
  /** Imports per tenant uploading, queued or running (IMPORT_MAX_ACTIVE). */
  maxActive: number;
  /** Largest file (IMPORT_MAX_BYTES). */
  maxBytes: number;
  /** Pending or processing captures of one import before it waits (IMPORT_MAX_IN_FLIGHT). */
  maxInFlight: number;
  /** Captures per transaction (IMPORT_BATCH_SIZE). */
  batchSize: number;
  /** How long a runner's claim holds (IMPORT_LEASE_MS). */
  leaseMs: number;
  /** Wakes the runner: an import was queued. */
  wake(): void;
}
