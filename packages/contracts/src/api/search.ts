import { z } from 'zod';
import { query } from '../procedure';
import { serviceInfoApi } from './service-info';
import { text } from '../common';

export const IndexedDocument = z.object({
  node_id: z.string(),
  title: z.string(),
  status: z.string(),
  updated_at: z.string(),
  indexed_at: z.string(),
});

/** The search service's tRPC contract: its projection of graph nodes, fed by graph events. */
export const searchApi = {
  ...serviceInfoApi,
  documents: {
    get: query('tenant', z.object({ node_id: text({ max: 64 }) }), IndexedDocument, ['gateway']),
    count: query('tenant', z.object({}), z.object({ count: z.number().int() }), ['gateway']),
  },
} as const;
