import type { paraApi } from '@kg/contracts';
import type { Db } from '@kg/db';
import type { ServiceHandle } from '@kg/trpc';

/** What the graph domain needs. `afterCommit` wakes the outbox relay. */
export interface GraphContext {
  db: Db;
  para: ServiceHandle<typeof paraApi>;
  afterCommit: () => void;
  /** Told of every committed write of a tenant's graph (the graph-view cache of a single writer). */
  tenantChanged?: (tenantId: string) => void;
  /**
   * Told of every committed write of a tenant's graph, and awaited before the write is
   * answered: draws the tenant's new view token, so no cached view from before is served after.
   */
  viewsChanged?: (tenantId: string) => Promise<void>;
  now: () => Date;
}
