import { beforeAll, describe, expect, it, vi } from 'vitest';
import { cliUser, kg } from './support/cli';

// Every step is a kg process (a second or more on a loaded machine): more than the e2e default of 30 s.
vi.setConfig({ testTimeout: 180_000 });

let config: string;
const run = (args: string[], input?: string) => kg(args, { config, input });
const create = async (title: string, content = '') =>
  (await run(['nodes', 'create', '--title', title, '--content', content, '--json'])).json().id as string;

beforeAll(async () => {
  ({ config } = await cliUser('para-graph'));
});

describe('kg para', () => {
  it('create, tree, list, complete, archive, unarchive', async () => {
    const project = await run([
      'para',
      'create',
      'projects',
      'Write',
      'the',
      'essay',
      '--description',
      'habits essay',
      '--json',
    ]);
    expect(project.code, project.stderr).toBe(0);
    const p = project.json();
    expect(p).toMatchObject({
      category: 'projects',
      label: 'Write the essay',
      status: 'active',
      slug: 'write-the-essay',
    });
    const area = (await run(['para', 'create', 'areas', 'Health', '--json'])).json();

    const tree = await run(['para', 'tree']);
    expect(tree.stdout).toMatch(
      /^Projects\n {2}Write the essay para_\S+\nAreas\n {2}Health para_\S+\nResources\n {2}\(none\)\n$/,
    );
    expect((await run(['para', 'tree', '--json'])).json().categories.map((c: any) => c.category)).toEqual([
      'projects',
      'areas',
      'resources',
    ]);

    const done = await run(['para', 'complete', p.id, '--json']);
    expect(done.json()).toMatchObject({ status: 'completed' });
    expect((await run(['para', 'list', '--status', 'completed', '--json'])).json().map((i: any) => i.id)).toEqual([
      p.id,
    ]);
    expect((await run(['para', 'complete', area.id])).code).toBe(1); // areas cannot be completed: 409
    expect((await run(['para', 'archive', area.id, '--json'])).json().status).toBe('archived');
    expect((await run(['para', 'unarchive', area.id, '--json'])).json().status).toBe('active');
    expect((await run(['para', 'list', '--category', 'areas'])).stdout).toMatch(
      /ID\s+CATEGORY\s+LABEL\s+STATUS\s+UPDATED\npara_\S+\s+areas\s+Health\s+active/,
    );
    expect((await run(['para', 'archive', 'para_00000000000000000000000000'])).code).toBe(4);
  });

  it('match --wait assigns the matching orphan nodes; rescan starts a job', async () => {
    const node = await create('Sourdough starter feeding', 'Feed the sourdough starter twice a day.');
    const item = (
      await run(['para', 'create', 'resources', 'Sourdough', '--description', 'sourdough starter bread', '--json'])
    ).json();
    const match = await run(['para', 'match', item.id, '--wait', '--json']);
    expect(match.code, match.stderr).toBe(0);
    expect(match.json()).toMatchObject({ kind: 'match', status: 'done' });
    const assigned = (await run(['nodes', 'list', '--para', item.id, '--json'])).json();
    expect(assigned.data.map((n: any) => n.id)).toContain(node);
    const rescan = await run(['para', 'rescan', '--wait', '--json']);
    expect(rescan.code, rescan.stderr).toBe(0);
    expect(rescan.json()).toMatchObject({ kind: 'rescan', status: 'done' });
    const again = await run(['para', 'rescan']);
    expect(again.code).toBe(1); // once per 5 minutes: 429
    expect(again.stderr).toMatch(/\(HTTP 429\)\n {2}Try again in \d+ s\./);
  });
});

describe('kg graph, context, suggest', () => {
  it('seed as an indented tree and as JSON; neighbours', async () => {
    const hub = await create('Graph hub');
    const a = await create('Alpha leaf');
    const b = await create('Beta leaf');
    const c = await create('Gamma twig');
    await run(['nodes', 'link', hub, a, '--weight', '0.9']);
    await run(['nodes', 'link', hub, b, '--weight', '0.5']);
    await run(['nodes', 'link', a, c, '--type', 'supports', '--weight', '0.7']);
    const tree = await run(['graph', 'seed', '--seed', hub, '--depth', '2']);
    expect(tree.code, tree.stderr).toBe(0);
    expect(tree.stdout).toBe(
      [
        `Graph hub ${hub}`,
        `├─ Alpha leaf ${a} related 0.9`,
        `│  └─ Gamma twig ${c} supports 0.7`,
        `└─ Beta leaf ${b} related 0.5`,
        '',
      ].join('\n'),
    );
    const json = (await run(['graph', 'seed', '--seed', hub, '--depth', '1', '--json'])).json();
    expect(json.seed_id).toBe(hub);
    expect(json.nodes.map((n: any) => n.id).sort()).toEqual([hub, a, b].sort());
    expect(json.frontier_ids).toEqual([a]);
    expect((await run(['graph', 'seed', '--seed', hub, '--depth', '1'])).stdout).toContain(
      `Alpha leaf ${a} related 0.9 …`,
    );

    const nb = await run(['graph', 'neighbors', hub]);
    expect(nb.stdout).toBe(`${hub}\n├─ ↔ Alpha leaf ${a} related 0.9\n└─ ↔ Beta leaf ${b} related 0.5\n`);
    const paged = await run(['graph', 'neighbors', hub, '--direction', 'out', '--limit', '1', '--all', '--json']);
    expect(paged.json().edges).toHaveLength(2);
    expect(paged.json().next_cursor).toBeNull();
    expect((await run(['graph', 'seed', '--depth', '4'])).code).toBe(2);
  });

  it('context with reasons; suggest from arguments and stdin', async () => {
    const focus = await create('Coffee roasting', 'Roasting coffee beans develops flavour.');
    const near = await create('Coffee brewing', 'Brewing coffee extracts flavour from roasted beans.');
    await run(['nodes', 'link', focus, near, '--weight', '0.8']);
    const ctx = await run(['context', '--focus', focus, '--mode', 'keyword', '--json']);
    expect(ctx.code, ctx.stderr).toBe(0);
    const hit = ctx.json().nodes.find((n: any) => n.id === near);
    expect(hit.reasons.join(' ')).toContain('linked to “Coffee roasting”');
    expect((await run(['context', '--focus', focus])).stdout).toMatch(
      /Coffee brewing node_\S+ \d\.\d\d\n {2}· linked to/,
    );

    // Suggestions are semantic: the search service embeds off the write path (docs/API.md
    // "Semantic search" gives the freshness bound), so the new node may take a moment to appear.
    const suggested = async () => {
      const sug = await run(['suggest', 'brewing', 'coffee', 'beans', '--json']);
      expect(sug.code, sug.stderr).toBe(0);
      return sug.json().suggestions.map((s: any) => s.node_id) as string[];
    };
    await expect.poll(suggested, { timeout: 30_000, interval: 250 }).toContain(near);
    const piped = await run(['suggest', '--node', focus, '--json'], 'roasting and brewing coffee');
    expect(piped.json().suggestions.map((s: any) => s.node_id)).not.toContain(focus);
    expect((await run(['suggest', 'coffee'])).stdout).toMatch(/^NODE\s+TITLE\s+SCORE/);
  });
});
