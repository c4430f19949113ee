import type { graphApi } from '@kg/contracts';
import type { Db } from '@kg/db';
import type { Logger } from '@kg/logger';
import type { ServiceHandle } from '@kg/trpc';
import type { OrphanScorer } from './scorer';

/** What the PARA domain needs. `graph` owns the node↔item associations; `afterCommit` wakes the outbox relay. */
export interface ParaContext {
  db: Db;
  graph: ServiceHandle<typeof graphApi>;
  scorer: OrphanScorer;
  logger: Logger;
  now: () => Date;
  afterCommit: () => void;
  /**
   * Told of every committed write of a tenant's items, and awaited before it is answered: the
   * placements in graph views depend on the items, so the tenant's view token changes.
   */
  viewsChanged?: (tenantId: string) => Promise<void>;
}
