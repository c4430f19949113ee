import { z } from 'zod';
import { query, mutation } from '../procedure';
import { ParaCategory } from '../graph-views';
import { ById, text } from '../common';
import {
  CreateParaItemInput,
  ListParaQuery,
  ParaItem,
  ParaItemList,
  ParaStatus,
  ParaTree,
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
    ),
    tree: query('tenant', z.object({}), ParaTree),
    list: query('tenant', ListParaQuery, ParaItemList),
    get: query('tenant', ById, ParaItem),
    create: mutation('tenant', CreateParaItemInput, ParaItem),
    update: mutation('tenant', ById.extend({ patch: UpdateParaItemInput }), ParaItem),
    complete: mutation('tenant', ById, ParaItem),
    undoComplete: mutation('tenant', ById, ParaItem),
    archive: mutation('tenant', ById, ParaItem),
    unarchive: mutation('tenant', ById, ParaItem),
  },
} as const;
