import type { paraApi } from '@kg/contracts';
import type { Db } from '@kg/db';
import type { ServiceHandle } from '@kg/trpc';

/** What the graph domain needs. `afterCommit` wakes the outbox relay. */
export interface GraphContext {
  db: Db;
  para: ServiceHandle<typeof paraApi>;
  afterCommit: () => void;
  now: () => Date;
}
