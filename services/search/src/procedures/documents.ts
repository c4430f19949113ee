import { notFound, type searchApi } from '@kg/contracts';
import type { Handlers } from '@kg/trpc';
import type { Db } from '@kg/db';
import { countDocuments, findDocument } from '../store/documents';

type DocumentHandlers = Handlers<typeof searchApi>['documents'];

export const getDocument =
  (db: Db): DocumentHandlers['get'] =>
  async ({ input, ctx }) => {
    const doc = await findDocument(db, ctx.identity.tenantId, input.node_id);
    if (!doc) throw notFound('Document');
    return {
      node_id: doc.nodeId,
      title: doc.title,
      status: doc.status,
      updated_at: doc.updatedAt.toISOString(),
      indexed_at: doc.indexedAt.toISOString(),
    };
  };

export const countDocs =
  (db: Db): DocumentHandlers['count'] =>
  async ({ ctx }) => ({ count: await countDocuments(db, ctx.identity.tenantId) });
