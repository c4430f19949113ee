// Nodes and links under load: four named scenarios that create nodes, link them, list and
// search them, and read related nodes, against the public REST API.
//
//   k6 run -e API_KEY=key_… [-e BASE_URL=http://127.0.0.1:8080] [-e PRESET=smoke] load-tests/scripts/nodes.js
import http from 'k6/http';
import { check, fail, sleep } from 'k6';
import exec from 'k6/execution';
import { Counter, Trend } from 'k6/metrics';
import { apiKeyParams, requireTarget } from '../lib/auth.js';
import { preset, scenariosFor } from '../lib/load-options.js';
import { summaryFiles } from '../lib/summary.js';
import { API, THINK_TIME } from '../lib/target.js';

const nodesCreated = new Counter('kg_nodes_created');
const linksWritten = new Counter('kg_links_written');
const createDuration = new Trend('kg_node_create_duration', true);
const linkDuration = new Trend('kg_link_duration', true);
const searchDuration = new Trend('kg_search_duration', true);
const relatedDuration = new Trend('kg_related_duration', true);

/** Nodes setup() creates: a chain read by read_related (never changed), a pool relinked by link_nodes. */
const CHAIN = 10;
const POOL = 10;

const p = preset();
export const options = {
  scenarios: scenariosFor(p, {
    create_nodes: { exec: 'createNodes', weight: 1 },
    link_nodes: { exec: 'linkNodes', weight: 1 },
    list_search: { exec: 'listAndSearch', weight: 1 },
    read_related: { exec: 'readRelated', weight: 1 },
  }),
  thresholds: {
    ...p.thresholds,
    // Each scenario's own latency (the `scenario` tag k6 adds to every request).
    'http_req_duration{scenario:create_nodes}': ['p(95)<1000'],
    'http_req_duration{scenario:list_search}': ['p(95)<1000'],
    kg_related_duration: ['p(95)<1000'],
    kg_nodes_created: ['count>0'],
    kg_links_written: ['count>0'],
  },
  setupTimeout: '60s',
  teardownTimeout: '10s',
  summaryTrendStats: ['avg', 'min', 'med', 'max', 'p(90)', 'p(95)', 'p(99)'],
};

const post = (url, body, params, name) => http.post(url, JSON.stringify(body), { ...params, tags: { name } });
const patch = (url, body, params, name) => http.patch(url, JSON.stringify(body), { ...params, tags: { name } });
const get = (url, params, name) => http.get(url, { ...params, tags: { name } });

function createNode(params, title, content, name) {
  const res = post(`${API}/nodes`, { title, content, tags: ['load'] }, params, name);
  if (res.status !== 201) fail(`setup: POST /nodes answered ${res.status}: ${res.body}`);
  return res.json('id');
}

export function setup() {
  requireTarget();
  const params = apiKeyParams();
  // A word unique to this run: keyword search for it finds this run's nodes only.
  const tag = `kgload${Date.now().toString(36)}`;
  const chain = [];
  for (let i = 0; i < CHAIN; i++)
    chain.push(createNode(params, `${tag} chain ${i}`, `Chain node ${i} of ${tag}.`, 'setup node'));
  // Each chain node is linked to its neighbours (links are replaced whole, and bidirectional).
  const neighbours = chain.map((_, i) => [chain[i - 1], chain[i + 1]].filter(Boolean));
  chain.forEach((id, i) => {
    const links = neighbours[i].map((target_id) => ({ target_id, type: 'next', weight: 0.8 }));
    const res = patch(`${API}/nodes/${id}/links`, { links }, params, 'setup links');
    if (res.status !== 200) fail(`setup: PATCH /nodes/:id/links answered ${res.status}: ${res.body}`);
  });
  const pool = [];
  for (let i = 0; i < POOL; i++)
    pool.push(createNode(params, `${tag} pool ${i}`, `Pool node ${i} of ${tag}.`, 'setup node'));
  return { params, tag, chain, neighbours, pool };
}

/** create_nodes: POST /nodes. */
export function createNodes({ params, tag }) {
  const title = `${tag} node ${exec.vu.idInTest}-${exec.vu.iterationInScenario}`;
  const res = post(
    `${API}/nodes`,
    { title, content: `Written under load by ${tag}.`, summary: 'load', tags: ['load'] },
    params,
    'POST /nodes',
  );
  createDuration.add(res.timings.duration);
  const ok = check(res, {
    'create: 201': (r) => r.status === 201,
    'create: id and title echoed': (r) => r.status === 201 && /^node_/.test(r.json('id')) && r.json('title') === title,
  });
  if (ok) nodesCreated.add(1);
  sleep(THINK_TIME);
}

/** link_nodes: PATCH /nodes/:id/links on the pool (full replacement, two targets). */
export function linkNodes({ params, pool }) {
  const i = (exec.vu.idInTest * 7 + exec.vu.iterationInScenario) % pool.length;
  const targets = [pool[(i + 1) % pool.length], pool[(i + 3) % pool.length]];
  const links = targets.map((target_id, k) => ({ target_id, type: 'relates_to', weight: k === 0 ? 0.9 : 0.4 }));
  const res = patch(`${API}/nodes/${pool[i]}/links`, { links }, params, 'PATCH /nodes/:id/links');
  linkDuration.add(res.timings.duration);
  const ok = check(res, {
    'link: 200': (r) => r.status === 200,
    'link: targets in the answer': (r) => {
      const got = r.status === 200 ? r.json('links').map((l) => l.target_id) : [];
      return targets.every((t) => got.includes(t));
    },
  });
  if (ok) linksWritten.add(links.length);
  sleep(THINK_TIME);
}

/** list_search: the newest page, then a keyword search for this run's word. */
export function listAndSearch({ params, tag }) {
  const list = get(`${API}/nodes?page=1&per_page=20`, params, 'GET /nodes');
  check(list, {
    'list: 200': (r) => r.status === 200,
    'list: a page of at most 20': (r) => r.status === 200 && r.json('per_page') === 20 && r.json('data').length <= 20,
  });
  const search = get(`${API}/nodes?query=${tag}&mode=keyword&page=1&per_page=10`, params, 'GET /nodes?query');
  searchDuration.add(search.timings.duration);
  check(search, {
    'search: 200': (r) => r.status === 200,
    'search: finds the setup nodes': (r) => r.status === 200 && r.json('total') >= CHAIN + POOL,
    'search: every hit has the word': (r) =>
      r.status === 200 && r.json('data').every((n) => `${n.title} ${n.body_markdown}`.includes(tag)),
  });
  sleep(THINK_TIME);
}

/** read_related: GET /nodes/:id/related on the chain, whose neighbours are known. */
export function readRelated({ params, chain, neighbours }) {
  const i = exec.vu.iterationInScenario % chain.length;
  const res = get(`${API}/nodes/${chain[i]}/related?limit=10`, params, 'GET /nodes/:id/related');
  relatedDuration.add(res.timings.duration);
  check(res, {
    'related: 200': (r) => r.status === 200,
    'related: exactly the linked neighbours': (r) => {
      if (r.status !== 200) return false;
      const got = r
        .json('nodes')
        .map((n) => n.id)
        .sort();
      return JSON.stringify(got) === JSON.stringify([...neighbours[i]].sort());
    },
  });
  sleep(THINK_TIME);
}

export function handleSummary(data) {
  return summaryFiles('nodes', data);
}
