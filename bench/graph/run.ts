/**
 * npm run bench:graph [-- --nodes=100000 --links=1000000 --db=pglite|postgres --samples=40]
 *
 * Generates a power-law tenant graph, loads it through the graph service's own schema,
 * then measures in one run, on the same data: the service's seed view (depth 1–3) and
 * neighbour pages; the same BFS and pages over an in-memory adjacency list (lower bound);
 * a recursive-CTE BFS (baseline); and the same neighbour page at 10k, 100k and 1M links.
 * Prints a table with ratios and writes bench-results/graph-<db>.json.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type { Identity } from '@kg/contracts';
import { createCursorStore, createMemoryKv } from '@kg/kv';
import { neighborsView, seedView, type ViewContext } from '../../services/graph/src/domain/views';
import { GraphCache } from '../../services/graph/src/domain/graph-cache';
import { createLogger } from '@kg/logger';
import { boundedBfs, frontierOf } from '../../services/graph/src/domain/bfs';
import { generateGraph, type SyntheticGraph } from './generate';
import { buildMemoryGraph, type MemoryGraph } from './memory-graph';
import { freshDatabase, type DbKind } from './databases';
import { loadGraph } from './load';
import { recursiveCteBfs } from './baseline';
import { fmt, summarize, time, type Summary } from './stats';

const { values: args } = parseArgs({
  options: {
    nodes: { type: 'string', default: '100000' },
    links: { type: 'string', default: '1000000' },
    db: { type: 'string', default: 'pglite' },
    samples: { type: 'string', default: '40' },
    'baseline-samples': { type: 'string', default: '8' },
    'max-nodes': { type: 'string', default: '500' },
  },
});
const NODES = Number(args.nodes);
const LINKS = Number(args.links);
const DB = args.db as DbKind;
const SAMPLES = Number(args.samples);
const MAX_NODES = Number(args['max-nodes']);
const TENANT = 'tnt_01jd8x6q1bf5r3v2m9w7k4t0za';
const identity: Identity = { tenantId: TENANT, subject: 'bench', credential: { kind: 'jwt', id: 'bench' } };
const log = (s: string) => console.log(s);

function context(db: ViewContext['db']): ViewContext {
  return {
    db,
    para: { service: 'para', as: () => ({ items: { resolve: async () => ({ items: [] }) } }) } as unknown as ViewContext['para'],
    afterCommit: () => {},
    now: () => new Date(),
    cursors: createCursorStore(createMemoryKv(), 'bench'),
    graphs: new GraphCache(db, createLogger('bench', 'silent'), 10_000_000),
  };
}

/** Deterministic sample of node ids whose degree is within [min, max]. */
function pick(g: SyntheticGraph, mem: MemoryGraph, count: number, min: number, max = Infinity): string[] {
  const out: string[] = [];
  for (let i = 0, step = 7919; out.length < count && i < g.ids.length * 3; i++) {
    const id = g.ids[(i * step) % g.ids.length]!;
    const d = mem.degree(id);
    if (d >= min && d <= max && !out.includes(id)) out.push(id);
  }
  return out;
}

/** The lower bound: the same bounded BFS, edges and frontier, over the in-memory adjacency. */
async function memorySeed(mem: MemoryGraph, seed: string, depth: number) {
  const bfs = await boundedBfs(seed, depth, MAX_NODES, mem.load);
  const inside = new Map<string, number>();
  const edges: Array<[string, string, number]> = [];
  for (const id of bfs.depths.keys()) {
    for (const e of mem.neighbours(id)) {
      if (!bfs.depths.has(e.target)) continue;
      inside.set(id, (inside.get(id) ?? 0) + 1);
      if (id < e.target) edges.push([id, e.target, e.weight]);
    }
  }
  const frontier = frontierOf(bfs, (id) => mem.degree(id), (id) => inside.get(id) ?? 0);
  return { nodes: [...bfs.depths], edges, frontier };
}

async function main() {
  mkdirSync('bench-results', { recursive: true });
  log(`bench:graph — ${NODES.toLocaleString()} nodes, ${LINKS.toLocaleString()} links, db=${DB}, max_nodes=${MAX_NODES}`);
  const g = generateGraph(NODES, LINKS);
  const mem = buildMemoryGraph(g);
  const maxDegree = Math.max(...g.ids.map((id) => mem.degree(id)));
  log(`  generated: max degree ${maxDegree}, mean ${(2 * g.a.length / NODES).toFixed(1)}`);
  const main = await freshDatabase(DB, 'main');
  await loadGraph(main.database.db, TENANT, g, log);
  const ctx = context(main.database.db);
  const loadStarted = performance.now();
  await ctx.graphs.get(TENANT);
  const cacheLoadMs = performance.now() - loadStarted;
  log(`  graph-view cache: first load of the tenant ${fmt(cacheLoadMs)} ms (once per tenant and process)`);

  const seeds = pick(g, mem, SAMPLES, 2, 200);
  const rows: Record<string, { ours: Summary; lower: Summary; baseline?: Summary }> = {};
  for (const depth of [1, 2, 3]) {
    const ours = summarize(await time(seeds, (seed) => seedView(ctx, identity, { seed, depth, max_nodes: MAX_NODES })));
    const lower = summarize(await time(seeds, (seed) => memorySeed(mem, seed, depth)));
    const few = seeds.slice(0, Number(args['baseline-samples']));
    const baseline = summarize(await time(few, (seed) => recursiveCteBfs(main.database.db, TENANT, seed, depth, MAX_NODES), 1));
    rows[`seed depth ${depth}`] = { ours, lower, baseline };
    log(`  seed depth ${depth}: ours p50 ${fmt(ours.p50)} ms, lower ${fmt(lower.p50)} ms, CTE ${fmt(baseline.p50)} ms`);
  }
  const pageNodes = pick(g, mem, SAMPLES, 101);
  const page = async (id: string) => {
    const first = await neighborsView(ctx, identity, id, { direction: 'out', limit: 50 });
    return first;
  };
  const ours = summarize(await time(pageNodes, page));
  const lower = summarize(await time(pageNodes, async (id) => mem.neighbours(id).slice(0, 51)));
  rows['neighbors page (50, out)'] = { ours, lower };
  log(`  neighbours page: ours p50 ${fmt(ours.p50)} ms, lower ${fmt(lower.p50)} ms`);

  // The same page (first 50 of a node with more than 100 neighbours) as the graph grows.
  const scaling: Record<string, Summary> = {};
  for (const links of [10_000, 100_000, LINKS]) {
    let db = main;
    let graph = g;
    let m = mem;
    if (links !== LINKS) {
      graph = generateGraph(links / 10, links);
      m = buildMemoryGraph(graph);
      db = await freshDatabase(DB, `s${links}`);
      await loadGraph(db.database.db, TENANT, graph, () => {});
    }
    const ids = pick(graph, m, SAMPLES, 101);
    const c = context(db.database.db);
    scaling[`${links.toLocaleString()} links`] = summarize(await time(ids, (id) => neighborsView(c, identity, id, { direction: 'out', limit: 50 })));
    log(`  page at ${links.toLocaleString()} links: p50 ${fmt(scaling[`${links.toLocaleString()} links`]!.p50)} ms (${ids.length} nodes)`);
    if (db !== main) await db.drop();
  }
  await main.drop();

  const d3 = rows['seed depth 3']!;
  const small = scaling['10,000 links']!;
  const big = scaling[`${LINKS.toLocaleString()} links`]!;
  const ratios = {
    'seed d3: ours / in-memory bound (p50)': d3.ours.p50 / d3.lower.p50,
    'seed d3: recursive CTE / ours (p50)': d3.baseline!.p50 / d3.ours.p50,
    [`neighbours page: ${LINKS.toLocaleString()} / 10,000 links (p50)`]: big.p50 / small.p50,
  };
  console.log('\n| measurement | ours p50 | p95 | p99 | in-memory p50 | recursive CTE p50 |');
  console.log('|---|---|---|---|---|---|');
  for (const [name, r] of Object.entries(rows)) {
    console.log(`| ${name} | ${fmt(r.ours.p50)} | ${fmt(r.ours.p95)} | ${fmt(r.ours.p99)} | ${fmt(r.lower.p50)} | ${r.baseline ? fmt(r.baseline.p50) : '—'} |`);
  }
  console.log('\n| neighbours page (50) at | p50 | p95 | p99 |\n|---|---|---|---|');
  for (const [name, s] of Object.entries(scaling)) console.log(`| ${name} | ${fmt(s.p50)} | ${fmt(s.p95)} | ${fmt(s.p99)} |`);
  console.log('\n| ratio | value | target |\n|---|---|---|');
  const targets = ['≤ 3', '≥ 10', '≤ 1.3'];
  Object.entries(ratios).forEach(([k, v], i) => console.log(`| ${k} | ${v.toFixed(2)} | ${targets[i]} |`));
  const file = `bench-results/graph-${DB}.json`;
  writeFileSync(file, JSON.stringify({ nodes: NODES, links: LINKS, db: DB, maxNodes: MAX_NODES, cacheLoadMs, rows, scaling, ratios, at: new Date().toISOString() }, null, 2));
  console.log(`\nwritten ${file}`);
}

await main();
