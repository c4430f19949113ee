import type { BlobStore } from '@kg/blobs';
import type { Db } from '@kg/db';
import type { Logger } from '@kg/logger';

/** What the captures domain needs. `afterCommit` wakes the outbox relay. */
export interface CapturesContext {
  db: Db;
  blobs: BlobStore;
  logger: Logger;
  now(): Date;
  afterCommit(): void;
  /** How long a claim holds when the worker names no lease (ms). */
  leaseMs: number;
}
