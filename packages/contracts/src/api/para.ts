import { z } from 'zod';
import { query, mutation } from '../procedure';
import { ParaCategory } from '../graph-views';
import { ById, text } from '../common';
import {
  CreateParaItemInput,
  EnsuredParaItem,
  EnsureParaItemInput,
  ListParaQuery,
  ParaItem,
  ParaItemList,
  ParaJob,
  ParaStatus,
  ParaTree,
  RescanAccepted,
  UpdateParaItemInput,
} from '../para';

/** The PARA service's tRPC contract. */
export const paraApi = {
  items: {
    /** Which of these ids are PARA items of the caller's tenant. Unknown ids are left out. */
    resolve: query(
      'tenant',
      z.object({ ids: z.array(text({ max: 64 })).max(100) }),
      z.object({ items: z.array(z.object({ id: z.string(), category: ParaCategory, status: ParaStatus })) }),
      ['graph'],
    ),
    tree: query('tenant', z.object({}), ParaTree, ['gateway']),
    /** graph: the active items a capture's node is matched against (proposals). */
    list: query('tenant', ListParaQuery, ParaItemList, ['gateway', 'graph']),
    get: query('tenant', ById, ParaItem, ['gateway']),
    create: mutation('tenant', CreateParaItemInput, ParaItem, ['gateway']),
    /** graph: the item a bookmark import's folder names, found or made (idempotent, one per label). */
    ensure: mutation('tenant', EnsureParaItemInput, EnsuredParaItem, ['graph']),
    update: mutation('tenant', ById.extend({ patch: UpdateParaItemInput }), ParaItem, ['gateway']),
    complete: mutation('tenant', ById, ParaItem, ['gateway']),
    undoComplete: mutation('tenant', ById, ParaItem, ['gateway']),
    archive: mutation('tenant', ById, ParaItem, ['gateway']),
    unarchive: mutation('tenant', ById, ParaItem, ['gateway']),
    /** Starts a job matching the tenant's orphan nodes against this item. */
    match: mutation('tenant', ById, ParaJob, ['gateway']),
  },
  /** Starts a job re-classifying every orphan node against the active items. */
  rescan: mutation('tenant', z.object({}), RescanAccepted, ['gateway']),
  jobs: {
    get: query('tenant', ById, ParaJob, ['gateway']),
  },
} as const;
