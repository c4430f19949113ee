// k6 run -e BASE_URL=http://127.0.0.1:8080 -e API_KEY=key_… -e PRESET=smoke load-tests/scripts/nodes.js
import http from 'k6/http';
import { check, group } from 'k6';
import { Counter, Trend } from 'k6/metrics';
import { API, requireTarget } from '../lib/api.js';
import { options as preset } from '../lib/load-options.js';

const created = new Counter('kg_nodes_created');
const seedDuration = new Trend('kg_graph_seed_duration', true);

const base = preset(__ENV.PRESET);
export const options = {
  thresholds: base.thresholds,
  scenarios: {
    writers: { executor: 'constant-vus', exec: 'write', vus: 1, duration: base.duration ?? '3m' },
    readers: base.stages
      ? { executor: 'ramping-vus', exec: 'read', stages: base.stages }
      : { executor: 'constant-vus', exec: 'read', vus: base.vus, duration: base.duration },
  },
};

export function setup() {
  const params = requireTarget();
  const ids = [];
  for (let i = 0; i < 20; i++) {
    const res = http.post(`${API}/nodes`, JSON.stringify({ title: `load seed ${i}`, content: `seed node ${i} for the load test` }), params);
    check(res, { 'seed node created': (r) => r.status === 201 }) && ids.push(res.json('id'));
  }
  for (let i = 1; i < ids.length; i++) {
    http.patch(`${API}/nodes/${ids[i]}/links`, JSON.stringify({ links: [{ target_id: ids[i - 1], type: 'related', weight: 0.5 }] }), params);
  }
  return { params, ids };
}

export function write({ params, ids }) {
  group('write', () => {
    const res = http.post(`${API}/nodes`, JSON.stringify({ title: `load ${__VU}-${__ITER}`, content: 'written under load', tags: ['load'] }), params);
    if (check(res, { 'node created': (r) => r.status === 201 })) created.add(1);
    const target = ids[__ITER % ids.length];
    const link = http.patch(`${API}/nodes/${res.json('id')}/links`, JSON.stringify({ links: [{ target_id: target, type: 'references' }] }), params);
    check(link, { 'linked': (r) => r.status === 200 });
  });
}

export function read({ params, ids }) {
  group('read', () => {
    const id = ids[__ITER % ids.length];
    check(http.get(`${API}/nodes?query=seed&mode=keyword&per_page=20`, params), { 'search 200': (r) => r.status === 200 });
    check(http.get(`${API}/nodes/${id}/related?limit=10`, params), { 'related 200': (r) => r.status === 200 });
    const seed = http.get(`${API}/graph/seed?seed=${id}&depth=2`, params);
    seedDuration.add(seed.timings.duration);
    check(seed, { 'seed 200 or 429': (r) => r.status === 200 || r.status === 429 });
  });
}

export function handleSummary(data) {
  return { 'load-tests/results/nodes-summary.json': JSON.stringify(data, null, 2), stdout: `\nchecks: ${JSON.stringify(data.metrics.checks?.values ?? {})}\n` };
}
