import { writeFileSync, mkdirSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page, Route } from '@playwright/test';
import { expect, nav, signIn, test } from '../support/fixtures';

/**
 * npm run bench:dashboard: the graph explorer on a 2,000-node seed view (the API's bound) in
 * headless Chromium (WebGL through SwiftShader, software rendering on the CPU). The seed answer
 * is synthetic (served by request interception with the API's exact shape) so the figures measure
 * the dashboard and sigma.js, not the server: time from the click on "Graph" to the first
 * frame with every node, and frames rendered per second while dragging the view.
 */
const NODES = 2000;
/** The same gestures on a 20-node view first: the machine's own frame rate, for the ratio. */
const BASELINE_NODES = 20;
const CATEGORIES = ['projects', 'areas', 'resources', null] as const;

function syntheticSeed(NODES: number) {
  let seed = 42;
  const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const id = (i: number) => `node_bench${String(i).padStart(5, '0')}`;
  const depthOf = (i: number) => (i === 0 ? 0 : i < Math.min(40, NODES / 4) ? 1 : i < Math.min(400, NODES / 2) ? 2 : 3);
  const edges: { source: string; target: string; link_type: string; weight: number }[] = [];
  const degree = new Array<number>(NODES).fill(0);
  const firstOf = [0, 1, Math.min(40, NODES / 4), Math.min(400, NODES / 2)];
  for (let i = 1; i < NODES; i++) {
    const d = depthOf(i);
    const parent = firstOf[d - 1]! + Math.floor(rand() * (firstOf[d]! - firstOf[d - 1]!));
    edges.push({
      source: id(parent),
      target: id(i),
      link_type: ['related', 'supports', 'extends'][i % 3]!,
      weight: 0.2 + rand() * 0.8,
    });
    degree[parent]!++;
    degree[i]!++;
    if (i > 40 && rand() < 0.5) {
      const other = 1 + Math.floor(rand() * (i - 1));
      edges.push({ source: id(i), target: id(other), link_type: 'related', weight: rand() });
      degree[other]!++;
      degree[i]!++;
    }
  }
  const nodes = Array.from({ length: NODES }, (_, i) => ({
    id: id(i),
    title: `Bench node ${i}`,
    para_category: CATEGORIES[i % 4]!,
    para_item_id: null,
    connection_count: degree[i]!,
    depth: depthOf(i),
  }));
  const frontier_ids = nodes.filter((n) => n.depth === 3 && n.connection_count > 1).map((n) => n.id);
  return {
    seed_id: id(0),
    nodes,
    edges,
    frontier_ids,
    meta: { node_count: NODES, edge_count: edges.length, depth: 3 },
  };
}

// Tracing would screenshot every mouse move and measure Playwright instead of the page.
test.use({ trace: 'off', screenshot: 'off', video: 'off' });

/** Opens the graph (from Health) on a synthetic view of `size` nodes, then drags the view in circles. */
async function measure(page: Page, size: number) {
  const view = syntheticSeed(size);
  const json = (route: Route, body: unknown) =>
    route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify(body) });
  await page.unrouteAll();
  await page.route('**/api/v1/graph/seed?**', (route) => json(route, view));
  await page.route('**/api/v1/nodes/node_bench*', (route) =>
    route.request().url().includes('/related')
      ? json(route, { nodes: [] })
      : json(route, {
          id: view.seed_id,
          title: 'Bench node 0',
          summary: '',
          body_markdown: 'Synthetic hub.',
          tags: [],
          para_item_ids: [],
          para_assignments: [],
          status: 'raw',
          created_at: new Date().toISOString(),
          updated_at: new Date().toISOString(),
        }),
  );
  await nav(page, 'Health').click();
  await expect(page.getByRole('heading', { name: 'Graph health' })).toBeVisible();
  const clickedAt = await page.evaluate(() => performance.now());
  await nav(page, 'Graph').click();
  // The default depth is 2; the synthetic answer is the same whatever the query asks.
  await page.waitForFunction(
    (n) => window.__kgGraphStats?.nodes === n && window.__kgGraphStats.firstRenderMs !== null,
    size,
    { timeout: 60_000 },
  );
  const stats = (await page.evaluate(() => window.__kgGraphStats))!;

  const box = (await page.locator('.sigma').boundingBox())!;
  const cx = box.x + box.width / 2;
  const cy = box.y + box.height / 2;
  await page.mouse.move(cx, cy);
  await page.mouse.down();
  const sample = () =>
    page.evaluate(() => {
      const w = window as unknown as { __frames?: number };
      if (w.__frames === undefined) {
        w.__frames = 0;
        const tick = () => {
          w.__frames!++;
          requestAnimationFrame(tick);
        };
        requestAnimationFrame(tick);
      }
      const s = window.__kgGraphStats!;
      return { at: performance.now(), renders: s.renders, renderMs: s.renderMsTotal, frames: w.__frames };
    });
  const before = await sample();
  for (let i = 1; i <= STEPS; i++) {
    const angle = (i / STEPS) * Math.PI * 4;
    await page.mouse.move(cx + Math.cos(angle) * 150, cy + Math.sin(angle) * 100);
  }
  const after = await sample();
  await page.mouse.up();
  const seconds = (after.at - before.at) / 1000;
  const renders = after.renders - before.renders;
  return {
    nodes: stats.nodes,
    edges: stats.edges,
    first_render_ms: Math.round(stats.firstRenderMs! - clickedAt),
    sigma_build_ms: Math.round(stats.buildMs!),
    pan_seconds: Number(seconds.toFixed(2)),
    pan_renders_per_second: Number((renders / seconds).toFixed(1)),
    mean_render_ms_while_panning: Number(((after.renderMs - before.renderMs) / Math.max(1, renders)).toFixed(2)),
    browser_frames_per_second: Number(((after.frames - before.frames) / seconds).toFixed(1)),
  };
}

const STEPS = 60;

test('graph explorer: time to first render and frame rate while panning, 2,000 nodes', async ({ page }) => {
  test.setTimeout(300_000);
  await signIn(page, 'bench@example.com');
  const baseline = await measure(page, BASELINE_NODES);
  const full = await measure(page, NODES);
  const renderer = await page.evaluate(() => {
    const gl = document.createElement('canvas').getContext('webgl2');
    const info = gl?.getExtension('WEBGL_debug_renderer_info');
    return info ? String(gl!.getParameter(info.UNMASKED_RENDERER_WEBGL)) : 'unknown';
  });
  const result = {
    renderer,
    load_average: loadavg().map((l) => Number(l.toFixed(1))),
    cpus: cpus().length,
    baseline,
    full,
    pan_fps_ratio_full_to_baseline: Number((full.pan_renders_per_second / baseline.pan_renders_per_second).toFixed(2)),
  };
  console.log(`graph explorer bench: ${JSON.stringify(result)}`);
  const out = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../../bench-results');
  mkdirSync(out, { recursive: true });
  writeFileSync(path.join(out, 'dashboard-graph.json'), `${JSON.stringify(result, null, 2)}\n`);
  expect(full.nodes).toBe(NODES);
  expect(full.pan_renders_per_second).toBeGreaterThan(0);
});
