import type { Db } from '@kg/db';

/** What the PARA domain needs. */
export interface ParaContext {
  db: Db;
  now: () => Date;
}
