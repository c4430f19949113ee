import { z } from 'zod';

/** Input fields shared by several tools (the API validates again and answers with its detail). */
export const nodeId = z.string().min(1).max(64).describe('A node id, e.g. node_01jd8x6q1bf5r3v2m9w7k4t0za');
export const paraItemId = z.string().min(1).max(64).describe('A PARA item id, e.g. para_01jd…');
export const searchMode = z
  .enum(['keyword', 'semantic', 'hybrid'])
  .describe('keyword: the words (BM25); semantic: the meaning (embeddings); hybrid (default): both fused');
export const nodeStatus = z
  .enum(['raw', 'validated', 'dismissed'])
  .describe('raw: unreviewed; validated: confirmed by a person; dismissed: hidden from graph views');
export const tags = z.array(z.string().min(1).max(64)).max(64).describe('Tags, each 1–64 characters');
