import { z } from 'zod';
import { query } from '../procedure';
import { serviceInfoApi } from './service-info';
import { text } from '../common';
import {
  ContextInput,
  ContextResponse,
  SearchNodesInput,
  SearchNodesOutput,
  SimilarNodesInput,
  SuggestLinksInput,
  SuggestLinksOutput,
} from '../search';

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
  /** Semantic and hybrid ranking of the tenant's nodes (GET /nodes with mode semantic or hybrid). */
  nodes: {
    search: query('tenant', SearchNodesInput, SearchNodesOutput, ['gateway']),
  },
  /** Nodes similar to a text (GET /links/suggestions), or to a node (the ingest worker's stage 5; no node: no hits). */
  links: {
    suggest: query('tenant', SuggestLinksInput, SuggestLinksOutput, ['gateway']),
    similar: query('tenant', SimilarNodesInput, SuggestLinksOutput, ['ingest-worker']),
  },
  /** Ranked context nodes for an AI session (POST /context). */
  context: {
    rank: query('tenant', ContextInput, ContextResponse, ['gateway']),
  },
  /** Indexing progress of the tenant: live documents and those embedded by the current model. */
  indexing: {
    status: query(
      'tenant',
      z.object({}),
      z.object({ model: z.string(), total: z.number().int(), embedded: z.number().int() }),
      ['gateway'],
    ),
  },
} as const;
