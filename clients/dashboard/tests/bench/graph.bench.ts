import { writeFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Route } from '@playwright/test';
import { expect, nav, signIn, test } from '../support/fixtures';

/**
 * npm run bench:dashboard: the graph explorer on a 2,000-node seed view (the API's bound) in
 * headless Chromium (WebGL through SwiftShader, software rendering on the CPU). The seed answer
 * is synthetic (served by request interception with the API's exact shape) so the figures measure
 * the dashboard and sigma.js, not the server: time from the click on "Graph" to the first
 * frame with every node, and frames rendered per second while dragging the view.
 */
const NODES = 2000;
const CATEGORIES = ['projects', 'areas', 'resources', null] as const;

function syntheticSeed() {
  let seed = 42;
  const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const id = (i: number) => `node_bench${String(i).padStart(5, '0')}`;
  const depthOf = (i: number) => (i === 0 ? 0 : i < 40 ? 1 : i < 400 ? 2 : 3);
  const edges: { source: string; target: string; link_type: string; weight: number }[] = [];
  const degree = new Array<number>(NODES).fill(0);
  const firstOf = [0, 1, 40, 400];
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

test('graph explorer: time to first render and frame rate while panning, 2,000 nodes', async ({ page }) => {
  test.setTimeout(180_000);
  const view = syntheticSeed();
  await signIn(page, 'bench@example.com');
  await nav(page, 'Health').click();
  await expect(page.getByRole('heading', { name: 'Graph health' })).toBeVisible();
  const json = (route: Route, body: unknown) =>
    route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify(body) });
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

  const clickedAt = await page.evaluate(() => performance.now());
  await nav(page, 'Graph').click();
  await page.waitForFunction(
    (n) => (window.__kgGraphStats?.nodes ?? 0) >= n && window.__kgGraphStats?.firstRenderMs,
    NODES,
    {
      timeout: 60_000,
    },
  );
  // The default depth is 2; the synthetic answer is the same whatever the query asks.
  const stats = (await page.evaluate(() => window.__kgGraphStats))!;
  const firstRenderMs = stats.firstRenderMs! - clickedAt;

  const box = (await page.locator('.sigma').boundingBox())!;
  const cx = box.x + box.width / 2;
  const cy = box.y + box.height / 2;
  await page.mouse.move(cx, cy);
  await page.mouse.down();
  const before = await page.evaluate(() => {
    const w = window as unknown as { __frames: number; __stop: boolean };
    w.__frames = 0;
    w.__stop = false;
    const tick = () => {
      w.__frames++;
      if (!w.__stop) requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
    return { at: performance.now(), renders: window.__kgGraphStats!.renders };
  });
  const steps = 240;
  for (let i = 1; i <= steps; i++) {
    const angle = (i / steps) * Math.PI * 4;
    await page.mouse.move(cx + Math.cos(angle) * 150, cy + Math.sin(angle) * 100);
  }
  const after = await page.evaluate(() => {
    const w = window as unknown as { __frames: number; __stop: boolean };
    w.__stop = true;
    return { at: performance.now(), renders: window.__kgGraphStats!.renders, frames: w.__frames };
  });
  await page.mouse.up();
  const seconds = (after.at - before.at) / 1000;
  const result = {
    nodes: stats.nodes,
    edges: stats.edges,
    first_render_ms: Math.round(firstRenderMs),
    sigma_build_ms: Math.round(stats.buildMs!),
    pan_seconds: Number(seconds.toFixed(2)),
    pan_renders_per_second: Number(((after.renders - before.renders) / seconds).toFixed(1)),
    browser_frames_per_second: Number((after.frames / seconds).toFixed(1)),
    renderer: await page.evaluate(() => {
      const gl = document.createElement('canvas').getContext('webgl2');
      const info = gl?.getExtension('WEBGL_debug_renderer_info');
      return info ? String(gl!.getParameter(info.UNMASKED_RENDERER_WEBGL)) : 'unknown';
    }),
  };
  console.log(`graph explorer bench: ${JSON.stringify(result)}`);
  const out = path.resolve('../../bench-results');
  mkdirSync(out, { recursive: true });
  writeFileSync(path.join(out, 'dashboard-graph.json'), `${JSON.stringify(result, null, 2)}\n`);
  expect(result.nodes).toBe(NODES);
  expect(result.pan_renders_per_second).toBeGreaterThan(0);
});
