import { existsSync } from 'node:fs';
import { sql } from 'drizzle-orm';
import { openDatabase } from '@kg/db';
import { createLogger } from '@kg/logger';
import { graphMigrations } from '../../services/graph/src/module';
import { createPlannerStatsJob } from '../../services/graph/src/domain/planner-stats';
import { keywordQuery, keywordSearch } from '../../services/graph/src/store/keyword';
import { summarize, time, fmt } from './stats';

const TENANT = 'tnt_01jd8x6q1bf5r3v2m9w7k4t0zz';
const VOCABULARY = 20_000;
function mulberry32(seed: number) { let t = seed >>> 0; return () => { t = (t + 0x6d2b79f5) >>> 0; let r = Math.imul(t ^ (t >>> 15), 1 | t); r = (r + Math.imul(r ^ (r >>> 7), 61 | r)) ^ r; return ((r ^ (r >>> 14)) >>> 0) / 4294967296; }; }
const SYLLABLES = ['ka', 'lo', 'mi', 'tu', 've', 'ro', 'sa', 'ni', 'po', 'de', 'gu', 'fe', 'zi', 'ba', 'ho', 'ju'];
const word = (r: number) => { let w = 'x'; for (let n = r, i = 0; i < 4; i++, n = Math.floor(n / 16)) w += SYLLABLES[n % 16]; return w; };
const rand = mulberry32(7);
const cumulative = new Float64Array(VOCABULARY);
for (let r = 0, sum = 0; r < VOCABULARY; r++) cumulative[r] = sum += 1 / (r + 1);
const zipf = () => { const x = rand() * cumulative[VOCABULARY - 1]!; let lo = 0; let hi = VOCABULARY - 1; while (lo < hi) { const mid = (lo + hi) >> 1; if (cumulative[mid]! < x) lo = mid + 1; else hi = mid; } return lo; };
const words = (n: number) => Array.from({ length: n }, () => word(zipf())).join(' ');

const dir = '/tmp/kw100k';
const fresh = !existsSync(dir);
const database = await openDatabase({ dataDir: dir });
const db = database.db;
await database.migrate(graphMigrations);
if (fresh) {
  for (let start = 0; start < 100000; start += 1000) {
    const rows = Array.from({ length: 1000 }, (_, k) => ({ id: `node_${String(start + k).padStart(26, '0')}`, title: words(5), body: words(40) }));
    await db.execute(sql`insert into graph.nodes (id, tenant_id, title, body_markdown) select r.id, ${TENANT}, r.title, r.body from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as r(id text, title text, body text)`);
  }
  await createPlannerStatsJob({ db, kind: database.kind, logger: createLogger('b', 'silent'), intervalMs: 60000 }).runOnce();
}
const q = process.env['Q'] ?? word(1);
const sets: Record<string, () => string> = { common: () => word(Math.floor(rand() * 3)), mid: () => word(300 + Math.floor(rand() * 50)), five: () => words(5), ten: () => words(10) };
for (const [k, f] of Object.entries(sets)) {
  const qs = Array.from({ length: 40 }, f);
  const s = summarize(await time(qs, (x) => keywordSearch(db, TENANT, x, {}, 20, 0)));
  console.log(k, fmt(s.p50), fmt(s.p95));
}
for (const extra of (process.env['SQL'] ?? '').split(';;').filter(Boolean)) {
  const s = summarize(await time(Array.from({ length: 10 }, () => 0), () => db.execute(sql.raw(extra.replaceAll('$W', word(1))))));
  console.log(extra.slice(0, 100), fmt(s.p50), fmt(s.p95));
}
if (process.env['EXPLAIN']) {
  const r = await db.execute(sql`explain (analyze, costs off, timing ${sql.raw(process.env['TIMING'] ?? 'on')}) ${keywordQuery(TENANT, q, {}, 20, 0)}`);
  console.log((r as any).rows.map((x: any) => Object.values(x)[0]).join('\n'));
}
await database.close();
