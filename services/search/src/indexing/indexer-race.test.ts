/**
 * Indexing races. Two indexers (two search replicas) on one search database and one vector
 * index: indexer A takes version 1 of a node and is slow to embed it; the node changes
 * (version 2); indexer B embeds version 2 and records it; A then stores its version-1 vector
 * over B's. Its record misses (the document is at version 2), so the document is made pending
 * again and embedded anew: the newest text keeps the vector. Likewise a point written for a
 * node deleted meanwhile is removed again.
 */
import { expect, it } from 'vitest';
import { newEventId } from '@kg/bus';
import { newId, openDatabase } from '@kg/db';
import { createLogger } from '@kg/logger';
import { createMemoryVectorIndex } from '@kg/vectors';
import { searchMigrations } from '../module';
import { applyNodeEvent } from '../consumers/node-events';
import { fakeGraph, indexedNode, testEmbedder } from '../testing';
import { directEmbedder } from '../tenant-embedder';
import { graphNodeSource } from '../graph-calls';
import { createIndexer, embedNode, nodesCollection, type IndexedNode } from './indexer';

const tenant = 'tnt_01jd8x6q1bf5r3v2m9w7k4t0za';
it('two indexers on one database and one vector index: the newest text keeps the vector', async () => {
  const database = await openDatabase({ dataDir: null });
  await database.migrate(searchMigrations);
  const vectors = createMemoryVectorIndex();
  const graphNodes = new Map([[tenant, new Map<string, IndexedNode>()]]);
  const nodes = graphNodeSource(fakeGraph(graphNodes));
  const base = testEmbedder();
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  let holdNext = true;
  const slow = {
    ...base,
    embed: async (texts: string[], kind: 'query' | 'passage') => {
      if (holdNext) {
        holdNext = false;
        await held;
      }
      return base.embed(texts, kind);
    },
  };
  const logger = createLogger('t', 'silent');
  const a = createIndexer({ db: database.db, vectors, embedder: directEmbedder(slow as never), nodes, logger });
  const b = createIndexer({ db: database.db, vectors, embedder: directEmbedder(base), nodes, logger });
  await a.ensureCollection();
  const id = newId('node');
  const mk = (title: string) => indexedNode(id, title);
  const ev = (type: 'node.created' | 'node.updated', n: IndexedNode, version: number) =>
    ({
      id: newEventId(),
      tenant_id: tenant,
      occurred_at: '2026-01-01T00:00:00.000Z',
      version,
      type,
      data: {
        node: {
          id,
          title: n.title,
          summary: '',
          tags: [],
          status: 'raw' as const,
          para_item_ids: [],
          source_capture_id: null,
          updated_at: n.updated_at,
        },
        changed: ['title'],
      },
    }) as never;
  const v1 = mk('apple orchard pruning');
  graphNodes.get(tenant)!.set(id, v1);
  await applyNodeEvent(database.db, ev('node.created', v1, 2));
  const passA = a.runPass(); // takes v1, reads "apple…", its embedding held
  await new Promise((r) => setTimeout(r, 50));
  const v2 = mk('bicycle chain repair');
  graphNodes.get(tenant)!.set(id, v2);
  await applyNodeEvent(database.db, ev('node.updated', v2, 3));
  while ((await b.runPass()) > 0); // B embeds v2 and records it
  release();
  await passA; // A stores its v1 vector over B's
  while ((await a.runPass()) + (await b.runPass()) > 0);
  const collection = nodesCollection(base.model, base.dimensions);
  const [hit] = await vectors.search(collection, {
    vector: await embedNode(base, v2),
    limit: 1,
    filter: { tenant_id: tenant },
  });
  expect(hit?.score).toBeCloseTo(1, 5); // today: 0 (the stored vector is of "apple orchard pruning")
  await database.close();
});

it('one indexer: a node deleted while its first vector is being embedded leaves no point behind', async () => {
  const database = await openDatabase({ dataDir: null });
  await database.migrate(searchMigrations);
  const vectors = createMemoryVectorIndex();
  const graphNodes = new Map([[tenant, new Map<string, IndexedNode>()]]);
  const nodes = graphNodeSource(fakeGraph(graphNodes));
  const base = testEmbedder();
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  let holdNext = true;
  const slow = {
    ...base,
    embed: async (texts: string[], kind: 'query' | 'passage') => {
      if (holdNext) {
        holdNext = false;
        await held;
      }
      return base.embed(texts, kind);
    },
  };
  const logger = createLogger('t', 'silent');
  const a = createIndexer({ db: database.db, vectors, embedder: directEmbedder(slow as never), nodes, logger });
  await a.ensureCollection();
  const id = newId('node');
  const mk = (title: string) => indexedNode(id, title);
  const ev = (type: 'node.created' | 'node.updated', n: IndexedNode, version: number) =>
    ({
      id: newEventId(),
      tenant_id: tenant,
      occurred_at: '2026-01-01T00:00:00.000Z',
      version,
      type,
      data: {
        node: {
          id,
          title: n.title,
          summary: '',
          tags: [],
          status: 'raw' as const,
          para_item_ids: [],
          source_capture_id: null,
          updated_at: n.updated_at,
        },
        changed: ['title'],
      },
    }) as never;
  const v1 = mk('apple orchard pruning');
  graphNodes.get(tenant)!.set(id, v1);
  await applyNodeEvent(database.db, ev('node.created', v1, 2));
  const passA = a.runPass(); // takes v1, reads "apple…", its embedding held
  await new Promise((r) => setTimeout(r, 50));
  graphNodes.get(tenant)!.delete(id);
  await applyNodeEvent(database.db, {
    id: newEventId(),
    tenant_id: tenant,
    occurred_at: '2026-01-01T00:00:00.000Z',
    version: 3,
    type: 'node.deleted',
    data: { node_id: id, unlinked_ids: [] },
  } as never);
  release();
  await passA; // A stores the v1 vector; its markEmbedded(v1) misses the tombstone
  while ((await a.runPass()) > 0);
  const collection = nodesCollection(base.model, base.dimensions);
  expect(await vectors.count(collection, { tenant_id: tenant })).toBe(0); // today: 1 (the tombstone has no embedded_version, so it is never pending)
  await database.close();
});
