import { z } from 'zod';
import { query } from '../procedure';
import { ParaCategory } from '../graph-views';
import { ParaStatus } from '../para';

/** The PARA service's tRPC contract (grows with the PARA issue). */
export const paraApi = {
  items: {
    /** Which of these ids are PARA items of the caller's tenant. Unknown ids are left out. */
    resolve: query(
      'tenant',
      z.object({ ids: z.array(z.string().max(64)).max(100) }),
      z.object({ items: z.array(z.object({ id: z.string(), category: ParaCategory, status: ParaStatus })) }),
    ),
  },
} as const;
