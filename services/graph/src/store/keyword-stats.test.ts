import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '@kg/db';
import { graphMigrations } from '../module';
import { freshIdentity, graphHarness, HARNESS_TIMEOUT, type GraphHarness } from '../testing';
import { keywordStatsSuite, statsAndRecount } from './keyword-stats.suite';

let h: GraphHarness;
beforeAll(async () => {
  h = await graphHarness();
}, HARNESS_TIMEOUT);
afterAll(() => h.database.close());

describe('keyword statistics (PGlite)', () => {
  keywordStatsSuite(() => h);

  it('are counted from the nodes already there when the migration that adds them runs', async () => {
    // The migrations before 0007, as a database written by an earlier version has them.
    const dir = mkdtempSync(path.join(tmpdir(), 'kg-graph-migrations-'));
    try {
      cpSync(graphMigrations.migrationsFolder, dir, { recursive: true });
      const journalFile = path.join(dir, 'meta/_journal.json');
      const journal = JSON.parse(readFileSync(journalFile, 'utf8')) as { entries: Array<{ tag: string }> };
      const at = journal.entries.findIndex((e) => e.tag === '0007_keyword_terms');
      expect(at).toBeGreaterThan(0);
      writeFileSync(journalFile, JSON.stringify({ ...journal, entries: journal.entries.slice(0, at) }));

      const database = await openDatabase({ dataDir: null });
      try {
        await database.migrate({ ...graphMigrations, migrationsFolder: dir });
        const t = freshIdentity();
        await database.db.execute(sql`
          insert into graph.nodes (id, tenant_id, title, body_markdown)
          select 'node_' || lpad(g::text, 26, '0'), ${t.tenantId}, 'written before ' || g, 'word' || (g % 5)
          from generate_series(1, 300) g`);
        await database.migrate(graphMigrations);
        const s = await statsAndRecount(database.db, t.tenantId);
        expect(s.kept).toEqual(s.counted);
        expect(s.kept).toContainEqual({ lexeme: 'written', nodes: 300 });
        expect(s.corpus).toEqual(s.corpusCounted);
      } finally {
        await database.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
