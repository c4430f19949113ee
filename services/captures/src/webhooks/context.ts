import type { Db } from '@kg/db';
import type { Logger } from '@kg/logger';
import type { AddressPolicy } from '@kg/service-kit';
import type { RetrySchedule } from './schedule';
import type { Subscribers } from './subscribers';

/** What the webhooks part of the captures service needs. */
export interface WebhooksContext {
  db: Db;
  logger: Logger;
  now(): Date;
  /** Which addresses an endpoint may resolve to (WEBHOOK_ALLOWLIST). */
  policy: AddressPolicy;
  schedule: RetrySchedule;
  /** An endpoint whose attempts all failed for this long is disabled (`failing`). */
  failureWindowMs: number;
  /** Endpoints one tenant may have. */
  maxEndpoints: number;
  /** Wakes the dispatcher: a delivery is due now. */
  wake(): void;
  /** The endpoints an event goes to (subscribers.ts); told of every write of an endpoint. */
  subscribers: Subscribers;
}
