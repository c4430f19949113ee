import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { api, newTenant, UNKNOWN_NODE, type Session } from './support/client';
import { call, callOk, KG_MCP, stdioClient } from './support/mcp';

const TOOLS = [
  'assign_para',
  'capture',
  'create_node',
  'get_context',
  'get_node',
  'graph_neighbors',
  'link_nodes',
  'para_tree',
  'search_nodes',
  'suggest_links',
  'update_node',
];

const apiUrl = () => `${inject('baseUrl')}/api/v1`;
const emptyConfigDir = () => mkdtempSync(path.join(tmpdir(), 'kg-mcp-cfg-'));

async function apiKey(session: Session): Promise<string> {
  const res = await api<{ key: string }>('POST', '/auth/api-keys', { auth: session.bearer, body: { name: 'mcp' } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.key;
}

describe('kg-mcp over stdio (SVC_TOKEN)', () => {
  let client: Client;
  let owner: Session;

  beforeAll(async () => {
    owner = await newTenant('mcp-stdio');
    const key = await apiKey(owner);
    ({ client } = await stdioClient({ SVC_API_URL: apiUrl(), SVC_TOKEN: key, KG_CONFIG_DIR: emptyConfigDir() }));
  });
  afterAll(async () => {
    await client?.close();
  });

  it('lists every tool with a description and an input schema', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(TOOLS);
    for (const t of tools) {
      expect(t.description!.length, t.name).toBeGreaterThan(60);
      expect(t.inputSchema.type).toBe('object');
    }
    const search = tools.find((t) => t.name === 'search_nodes')!;
    expect((search.inputSchema.properties as any).mode.enum).toEqual(['keyword', 'semantic', 'hybrid']);
  });

  it('creates, reads, updates and finds a node', async () => {
    const created = await callOk(client, 'create_node', {
      title: 'Espresso extraction ratios',
      content: 'Pull 18 g in, 36 g out, in about 28 seconds.',
      tags: ['coffee'],
    });
    expect(created).toMatchObject({ title: 'Espresso extraction ratios', tags: ['coffee'], status: 'raw' });

    const read = await call(client, 'get_node', { id: created.id });
    expect(read.isError).toBe(false);
    expect(read.text).toContain('# Espresso extraction ratios');
    expect(read.text).toContain('Pull 18 g in, 36 g out');
    expect(read.structured.body_markdown).toBe('Pull 18 g in, 36 g out, in about 28 seconds.');

    const updated = await callOk(client, 'update_node', {
      id: created.id,
      status: 'validated',
      summary: 'A 1:2 ratio',
    });
    expect(updated).toMatchObject({ id: created.id, status: 'validated', summary: 'A 1:2 ratio', tags: ['coffee'] });

    const found = await callOk(client, 'search_nodes', { query: 'espresso', mode: 'keyword', status: 'validated' });
    expect(found.total).toBe(1);
    expect(found.data[0]).toMatchObject({ id: created.id, title: 'Espresso extraction ratios' });
    expect(found.data[0].body_markdown).toBeUndefined();
    const none = await callOk(client, 'search_nodes', { query: 'espresso', mode: 'keyword', status: 'raw' });
    expect(none.total).toBe(0);
  });

  it('adds links without dropping the others, removes one, and shows the neighbours', async () => {
    const a = await callOk(client, 'create_node', { title: 'Grinder burrs' });
    const b = await callOk(client, 'create_node', { title: 'Grind size' });
    const c = await callOk(client, 'create_node', { title: 'Water temperature' });
    await callOk(client, 'link_nodes', {
      source_id: a.id,
      links: [{ target_id: b.id, type: 'supports', weight: 0.8 }],
    });
    const both = await callOk(client, 'link_nodes', { source_id: a.id, links: [{ target_id: c.id }] });
    expect(both.links).toEqual([
      { target_id: c.id, type: 'related', weight: 1 },
      { target_id: b.id, type: 'supports', weight: 0.8 },
    ]);
    const neighbours = await callOk(client, 'graph_neighbors', { id: b.id, direction: 'out' });
    expect(neighbours.edges).toEqual([{ source: b.id, target: a.id, link_type: 'supports', weight: 0.8 }]);
    const one = await callOk(client, 'link_nodes', { source_id: a.id, unlink: [c.id] });
    expect(one.links).toEqual([{ target_id: b.id, type: 'supports', weight: 0.8 }]);
  });

  it('captures a note, a URL and a highlight with source mcp', async () => {
    const note = await callOk(client, 'capture', {
      kind: 'note',
      text: '# Idea\nCold brew concentrate for milk drinks',
    });
    expect(note).toMatchObject({ title: 'Idea', content_type: 'note', source: 'mcp', status: 'pending' });
    const url = await callOk(client, 'capture', {
      kind: 'url',
      url: 'https://example.com/espresso',
      why: 'dial-in guide',
    });
    expect(url).toMatchObject({ url: 'https://example.com/espresso', why: 'dial-in guide', source: 'mcp' });
    const hl = await callOk(client, 'capture', {
      kind: 'highlight',
      url: 'https://example.com/espresso',
      text: 'Channeling shows as a fast, blond shot.',
    });
    expect(hl).toMatchObject({ selected_text: 'Channeling shows as a fast, blond shot.', source: 'mcp' });
    const missing = await call(client, 'capture', { kind: 'highlight', url: 'https://example.com/x' });
    expect(missing).toMatchObject({ isError: true, text: 'A highlight needs `text` (the highlighted passage).' });
  });

  it('shows the PARA tree and assigns a node to items', async () => {
    const project = await api('POST', '/para', {
      auth: owner.bearer,
      body: { category: 'projects', label: 'Cafe menu' },
    });
    const area = await api('POST', '/para', { auth: owner.bearer, body: { category: 'areas', label: 'Coffee' } });
    const tree = await callOk(client, 'para_tree');
    expect(tree.categories.map((c: any) => c.category)).toEqual(['projects', 'areas', 'resources']);
    expect(tree.categories[0].items.map((i: any) => i.id)).toContain(project.body.id);
    // A title that shares no word with the items, so the items' own orphan scans (PARA jobs that
    // run after their creation) never assign it first: every assignment below is the user's.
    const node = await callOk(client, 'create_node', { title: 'Pricing sheet' });
    await callOk(client, 'assign_para', { node_id: node.id, para_item_ids: [project.body.id] });
    const two = await callOk(client, 'assign_para', { node_id: node.id, para_item_ids: [area.body.id] });
    expect(two.para_item_ids).toEqual([project.body.id, area.body.id]);
    expect(two.para_assignments.map((a: any) => a.assigned_by)).toEqual(['user', 'user']);
    const left = await callOk(client, 'assign_para', {
      node_id: node.id,
      para_item_ids: [project.body.id],
      mode: 'remove',
    });
    expect(left.para_item_ids).toEqual([area.body.id]);
  });

  it('answers context for focus nodes and link suggestions', async () => {
    const focus = await callOk(client, 'create_node', { title: 'Milk steaming technique' });
    const linked = await callOk(client, 'create_node', { title: 'Latte art basics' });
    await callOk(client, 'link_nodes', { source_id: focus.id, links: [{ target_id: linked.id, weight: 0.9 }] });
    const ctx = await callOk(client, 'get_context', { focus_node_ids: [focus.id], mode: 'keyword' });
    const hit = ctx.nodes.find((n: any) => n.id === linked.id);
    expect(hit.reasons.join(' ')).toContain('Milk steaming technique');
    expect(ctx.nodes.map((n: any) => n.id)).not.toContain(focus.id);
    const sugg = await callOk(client, 'suggest_links', { text: 'steaming milk for a latte', node_id: focus.id });
    expect(Array.isArray(sugg.suggestions)).toBe(true);
    expect(sugg.suggestions.map((s: any) => s.node_id)).not.toContain(linked.id);
  });

  it('serves nodes as markdown resources, listed and by template', async () => {
    const node = await callOk(client, 'create_node', {
      title: 'Resource node',
      summary: 'Short',
      content: 'Body text',
    });
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate)).toContain('kg://nodes/{id}');
    const { resources } = await client.listResources();
    expect(resources.find((r) => r.uri === `kg://nodes/${node.id}`)).toMatchObject({
      name: 'Resource node',
      mimeType: 'text/markdown',
    });
    const read = await client.readResource({ uri: `kg://nodes/${node.id}` });
    const text = (read.contents[0] as { text: string }).text;
    expect(text).toMatch(/^---\nid: node_/);
    expect(text).toContain('# Resource node\n\n> Short\n\nBody text\n');
    await expect(client.readResource({ uri: `kg://nodes/${UNKNOWN_NODE}` })).rejects.toThrow(/404/);
  });

  it("returns the API's problem as a tool error", async () => {
    const missing = await call(client, 'get_node', { id: UNKNOWN_NODE });
    expect(missing.isError).toBe(true);
    expect(missing.text).toBe('404 Not found: Node not found');
    const badPara = await call(client, 'create_node', {
      title: 'x',
      para_item_ids: ['para_01jd8x6q1bf5r3v2m9w7k4t0za'],
    });
    expect(badPara.isError).toBe(true);
    expect(badPara.text).toContain('400');
    expect(badPara.text).toContain('- para_item_ids.0: no such PARA item');
    const invalid = await call(client, 'create_node', { title: '' });
    expect(invalid.isError).toBe(true);
    expect(invalid.text).toContain('title');
  });
});

describe('kg-mcp over stdio without a credential', () => {
  it('starts, and every tool says how to sign in', async () => {
    const { client, stderr } = await stdioClient({ SVC_API_URL: apiUrl(), KG_CONFIG_DIR: emptyConfigDir() });
    try {
      const res = await call(client, 'search_nodes', { query: 'x' });
      expect(res.isError).toBe(true);
      expect(res.text).toContain('Not signed in');
      expect(res.text).toContain('SVC_TOKEN');
      expect(stderr()).toContain('credential: none');
    } finally {
      await client.close();
    }
  });

  it('refuses an access token in SVC_TOKEN with a clear message', async () => {
    const s = await newTenant('mcp-jwt');
    const run = spawnSync(KG_MCP, [], {
      env: { PATH: process.env['PATH'], SVC_API_URL: apiUrl(), SVC_TOKEN: s.access_token },
      input: '',
      encoding: 'utf8',
    });
    expect(run.status).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('SVC_TOKEN holds an access token (a JWT); it takes an API key only.');
  });
});
