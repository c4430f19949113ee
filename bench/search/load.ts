import { sql } from 'drizzle-orm';
import type { Db } from '@kg/db';
import type { VectorIndex } from '@kg/vectors';
import { FILTER_KEYS, payloadOf, nodesCollection, PAYLOAD_VERSION } from '../../services/search/src/indexing/indexer';
import { mulberry32, noisyVector, type SyntheticNode, type Topic } from './corpus';

const BATCH = 1000;

/**
 * Writes the synthetic nodes straight into graph's and search's tables (graph.nodes with the
 * tenant's counters, search.documents marked embedded by `model`), as the services store them,
 * then refreshes the planner's statistics. Much faster than POST /nodes, and only reads are timed.
 */
export async function loadTables(
  db: Db,
  tenantId: string,
  nodes: SyntheticNode[],
  model: string,
  log: (s: string) => void,
) {
  const t0 = performance.now();
  const now = new Date().toISOString();
  for (let start = 0; start < nodes.length; start += BATCH) {
    const rows = nodes.slice(start, start + BATCH).map((n) => ({ id: n.id, title: n.title, body: n.body }));
    const json = JSON.stringify(rows);
    await db.execute(sql`
      insert into graph.nodes (id, tenant_id, title, body_markdown)
      select r.id, ${tenantId}, r.title, r.body from jsonb_to_recordset(${json}::jsonb) as r(id text, title text, body text)`);
    await db.execute(sql`
      insert into search.documents (tenant_id, node_id, title, summary, tags, status, para_item_ids, updated_at, version, embedded_version, embedded_model, embedded_payload)
      select ${tenantId}, r.id, r.title, '', '{}', 'raw', '{}', ${now}::timestamptz, 1, 1, ${model}, ${PAYLOAD_VERSION}
      from jsonb_to_recordset(${json}::jsonb) as r(id text, title text)`);
    if ((start / BATCH) % 20 === 0) log(`  rows ${start.toLocaleString()} / ${nodes.length.toLocaleString()}`);
  }
  await db.execute(sql`
    insert into graph.tenant_stats (tenant_id, total_nodes) values (${tenantId}, ${nodes.length})
    on conflict (tenant_id) do update set total_nodes = graph.tenant_stats.total_nodes + ${nodes.length}`);
  await db.execute(sql`analyze graph.nodes`);
  await db.execute(sql`analyze search.documents`);
  log(`  ${nodes.length.toLocaleString()} rows in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
}

/**
 * Writes each node's vector (its topic's centroid plus noise) through the vectors port into
 * every index of `indexes` (the in-process index's persisted log under a folder, where the
 * search service loads it at start; Qdrant), the same vectors in each, 1,000 points per upsert.
 */
export async function loadVectors(
  indexes: VectorIndex[],
  tenantId: string,
  nodes: SyntheticNode[],
  topics: Topic[],
  model: string,
  log: (s: string) => void,
) {
  const dimensions = topics[0]!.centroid.length;
  const collection = nodesCollection(model, dimensions);
  for (const index of indexes) await index.ensureCollection(collection, dimensions, { filterKeys: FILTER_KEYS });
  const seconds = new Map(indexes.map((i) => [i, 0]));
  const rand = mulberry32(5);
  const updated = new Date().toISOString();
  for (let start = 0; start < nodes.length; start += BATCH) {
    const points = nodes.slice(start, start + BATCH).map((n) => ({
      id: n.id,
      vector: noisyVector(topics[n.topic]!.centroid, rand),
      payload: payloadOf(
        tenantId,
        {
          ...n,
          summary: '',
          body_markdown: n.body,
          status: 'raw',
          para_item_ids: [],
          source_capture_id: null,
          updated_at: updated,
        },
        model,
      ),
    }));
    for (const index of indexes) {
      const t0 = performance.now();
      await index.upsert(collection, points);
      seconds.set(index, seconds.get(index)! + (performance.now() - t0) / 1000);
    }
    if ((start / BATCH) % 20 === 0) log(`  vectors ${start.toLocaleString()} / ${nodes.length.toLocaleString()}`);
  }
  for (const [index, s] of seconds)
    log(`  ${nodes.length.toLocaleString()} vectors into the ${index.kind} index in ${s.toFixed(1)} s`);
}
