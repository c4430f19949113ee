import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { sql, type SQL } from 'drizzle-orm';
import { graphHarness, type GraphHarness } from './testing';
import { graphMigrations } from './module';

/** Rows of raw SQL (both drivers answer `{ rows }`). */
const rows = async <T = Record<string, unknown>>(h: GraphHarness, query: SQL) =>
  ((await h.database.db.execute(query)) as unknown as { rows: T[] }).rows;

describe('graph module', () => {
  it('points at its committed migrations, in the graph schema', () => {
    expect(graphMigrations.schema).toBe('graph');
    expect(existsSync(path.join(graphMigrations.migrationsFolder, 'meta', '_journal.json'))).toBe(true);
  });

  it('migrates the graph schema (search vector generated, indexes in place) and serves the contract', async () => {
    const h = await graphHarness();
    const indexes = await rows<{ indexname: string }>(
      h,
      sql`select indexname from pg_indexes where schemaname = 'graph' order by indexname`,
    );
    expect(indexes.map((r) => r.indexname)).toEqual(
      expect.arrayContaining([
        'nodes_search_idx',
        'nodes_para_item_ids_idx',
        'nodes_tenant_created_idx',
        'nodes_tenant_status_idx',
        'nodes_tenant_connections_idx',
        'links_tenant_target_source_idx',
        'links_tenant_source_weight_idx',
        'outbox_pending_idx',
      ]),
    );
    const n = await h.as(1).nodes.create({ title: 'Photosynthesis', tags: ['biology', 'plants'] });
    const [row] = await rows(h, sql`select tags_text, search::text as search from graph.nodes where id = ${n.id}`);
    expect(row).toEqual({ tags_text: 'biology plants', search: "'biolog':2B 'photosynthesi':1A 'plant':3B" });
    expect(await h.as(1).views.health({})).toMatchObject({ total_nodes: 1, total_links: 0 });
    expect(h.module.name).toBe('graph');
    await h.module.start();
    await h.module.start();
    expect(await h.module.ready()).toBe(true);
    await h.module.stop();
    await h.database.close();
    expect(await h.module.ready()).toBe(false);
  }, 60_000);
});
