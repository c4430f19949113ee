/**
 * Keyword search latency (graph's BM25 statement, store level, no HTTP) on one tenant of
 * synthetic text: words drawn from a Zipf distribution over a made-up vocabulary, so a few
 * words are in most nodes and most words in few. Statistics refreshed by the graph's
 * planner-statistics job before timing.
 *
 * Usage: npm run bench:keyword [-- --nodes=100000 --db=pglite|postgres --candidates=1000]
 * (postgres: a server at DATABASE_URL or the scripts/infra one; a scratch database is made and dropped).
 * KW_EXPLAIN=1 also prints the analyzed plan of one five-word query.
 */
import { sql } from 'drizzle-orm';
import { createLogger } from '@kg/logger';
import { createPlannerStatsJob } from '../../services/graph/src/domain/planner-stats';
import { KEYWORD_LIMITS, keywordQuery, keywordSearch } from '../../services/graph/src/store/keyword';
import { freshDatabase, type DbKind } from './databases';
import { fmt, summarize, time } from './stats';

const arg = (name: string, fallback: string) =>
  process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;
const NODES = Number(arg('nodes', '100000'));
const KIND = arg('db', 'pglite') as DbKind;
/** The candidate bound measured (the service's KEYWORD_LIMITS.candidates unless given). */
const CANDIDATES = Number(arg('candidates', String(KEYWORD_LIMITS.candidates)));
const TENANT = 'tnt_01jd8x6q1bf5r3v2m9w7k4t0zz';
const VOCABULARY = 20_000;

function mulberry32(seed: number) {
  let t = seed >>> 0;
  return () => {
    t = (t + 0x6d2b79f5) >>> 0;
    let r = Math.imul(t ^ (t >>> 15), 1 | t);
    r = (r + Math.imul(r ^ (r >>> 7), 61 | r)) ^ r;
    return ((r ^ (r >>> 14)) >>> 0) / 4294967296;
  };
}
const SYLLABLES = ['ka', 'lo', 'mi', 'tu', 've', 'ro', 'sa', 'ni', 'po', 'de', 'gu', 'fe', 'zi', 'ba', 'ho', 'ju'];
/** Word of rank r (0 = most frequent): three or four syllables, unique per rank. */
const word = (r: number) => {
  let w = 'x';
  for (let n = r, i = 0; i < 4; i++, n = Math.floor(n / 16)) w += SYLLABLES[n % 16];
  return w;
};
const rand = mulberry32(7);
const cumulative = new Float64Array(VOCABULARY);
for (let r = 0, sum = 0; r < VOCABULARY; r++) cumulative[r] = sum += 1 / (r + 1);
const zipf = () => {
  const x = rand() * cumulative[VOCABULARY - 1]!;
  let lo = 0;
  let hi = VOCABULARY - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (cumulative[mid]! < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
};
const words = (n: number) => Array.from({ length: n }, () => word(zipf())).join(' ');

async function main() {
  const { database, drop } = await freshDatabase(KIND, 'keyword');
  const db = database.db;
  try {
    const t0 = performance.now();
    for (let start = 0; start < NODES; start += 1000) {
      const rows = Array.from({ length: Math.min(1000, NODES - start) }, (_, k) => ({
        id: `node_${String(start + k).padStart(26, '0')}`,
        title: words(5),
        body: words(40),
      }));
      await db.execute(sql`
        insert into graph.nodes (id, tenant_id, title, body_markdown)
        select r.id, ${TENANT}, r.title, r.body from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as r(id text, title text, body text)`);
    }
    await db.execute(
      sql`insert into graph.tenant_stats (tenant_id, total_nodes, version) values (${TENANT}, ${NODES}, ${NODES})`,
    );
    const loadMs = performance.now() - t0;
    const job = createPlannerStatsJob({
      db,
      kind: database.kind,
      logger: createLogger('bench', 'silent'),
      intervalMs: 60_000,
    });
    const t1 = performance.now();
    await job.runOnce();
    const analyzeMs = performance.now() - t1;
    console.log(`${KIND}: ${NODES} nodes loaded in ${fmt(loadMs)} ms; statistics job ${fmt(analyzeMs)} ms`);
    const cases: Array<[string, () => string]> = [
      ['rare word (rank 15,000)', () => word(15_000 + Math.floor(rand() * 1000))],
      ['mid word (rank 300)', () => word(300 + Math.floor(rand() * 50))],
      ['common word (rank 0-2)', () => word(Math.floor(rand() * 3))],
      ['5 Zipf words', () => words(5)],
      ['10 Zipf words', () => words(10)],
      ['stop words only', () => 'the and of or'],
    ];
    if (process.env['KW_EXPLAIN']) {
      const r = await db.execute(sql`explain (analyze, costs off) ${keywordQuery(TENANT, words(5), {}, 20, 0)}`);
      console.log(
        (r as unknown as { rows: Array<Record<string, string>> }).rows.map((x) => Object.values(x)[0]).join('\n'),
      );
    }
    // The baseline, in the same run: every node holding a query word scored (no candidate bound).
    const exhaustive = { ...KEYWORD_LIMITS, candidates: 2 ** 31 - 1 };
    const bounded = { ...KEYWORD_LIMITS, candidates: CANDIDATES };
    console.log(`candidates per query: at most ${CANDIDATES}; the baseline scores every node holding a query word`);
    console.log(
      `| query | p50 ms | p95 ms | candidates | baseline p50 ms | p95 ms | candidates | p95 ÷ baseline p95 | top-10 agreement |`,
    );
    console.log('|---|---|---|---|---|---|---|---|---|');
    for (const [label, make] of cases) {
      const queries = Array.from({ length: 30 }, make);
      let total = 0;
      let allTotal = 0;
      const tops = new Map<string, string[]>();
      const samples = await time(queries, async (q) => {
        const page = await keywordSearch(db, TENANT, q, {}, 20, 0, bounded);
        total = page.total;
        tops.set(
          q,
          page.hits.slice(0, 10).map((x) => x.id),
        );
      });
      // The baseline on the first ten queries (scoring every holder of a common word takes seconds):
      // its latency, and how many of its top 10 the bounded query also ranks in its top 10.
      let agree = 0;
      let expected = 0;
      const baseline = await time(
        queries.slice(0, 10),
        async (q) => {
          const page = await keywordSearch(db, TENANT, q, {}, 20, 0, exhaustive);
          allTotal = page.total;
          const top = new Set(tops.get(q));
          const full = page.hits.slice(0, 10).map((x) => x.id);
          expected += full.length;
          agree += full.filter((id) => top.has(id)).length;
        },
        0,
      );
      const s = summarize(samples);
      const b = summarize(baseline);
      console.log(
        `| ${label} | ${fmt(s.p50)} | ${fmt(s.p95)} | ${total} | ${fmt(b.p50)} | ${fmt(b.p95)} | ${allTotal} | ${(s.p95 / b.p95).toFixed(2)} | ${expected ? (agree / expected).toFixed(3) : '-'} |`,
      );
    }
    // What keeping the statistics costs a write: single-node inserts (one statement and
    // transaction each, a 45-word node as above) with the triggers, then without, same tenant.
    const insertOne = (i: number) =>
      db.execute(
        sql`insert into graph.nodes (id, tenant_id, title, body_markdown) values (${`node_w${String(i).padStart(25, '0')}`}, ${TENANT}, ${words(5)}, ${words(40)})`,
      );
    const WRITES = 300;
    const withTriggers = summarize(
      await time(
        Array.from({ length: WRITES }, (_, i) => i),
        insertOne,
        0,
      ),
    );
    await db.execute(sql`alter table graph.nodes disable trigger user`);
    const without = summarize(
      await time(
        Array.from({ length: WRITES }, (_, i) => WRITES + i),
        insertOne,
        0,
      ),
    );
    console.log(
      `single-node insert (${WRITES} each): with the statistics' triggers p50 ${fmt(withTriggers.p50)} ms, p95 ${fmt(withTriggers.p95)} ms; without p50 ${fmt(without.p50)} ms, p95 ${fmt(without.p95)} ms (p50 ratio ${(withTriggers.p50 / without.p50).toFixed(2)})`,
    );
  } finally {
    await drop();
  }
}

await main();
