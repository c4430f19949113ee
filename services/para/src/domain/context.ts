import type { graphApi } from '@kg/contracts';
import type { Db } from '@kg/db';
import type { Logger } from '@kg/logger';
import type { ServiceHandle } from '@kg/trpc';

/** What the PARA domain needs. `graph` owns the node↔item associations. */
export interface ParaContext {
  db: Db;
  graph: ServiceHandle<typeof graphApi>;
  logger: Logger;
  now: () => Date;
}
