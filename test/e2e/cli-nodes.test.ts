import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { cliUser, kg } from './support/cli';

// Every step is a kg process (a second or more on a loaded machine): more than the e2e default of 30 s.
vi.setConfig({ testTimeout: 180_000 });

let config: string;
const run = (args: string[], input?: string, env?: Record<string, string>) => kg(args, { config, input, env });

beforeAll(async () => {
  ({ config } = await cliUser('nodes'));
});

describe('kg nodes', () => {
  it('create from flags, a file with front matter, and stdin; get shows them', async () => {
    const a = await run([
      'nodes',
      'create',
      '--title',
      'Spaced repetition',
      '--content',
      'Review at growing intervals.',
      '--tag',
      'learning',
      '--tag',
      'memory',
      '--json',
    ]);
    expect(a.code, a.stderr).toBe(0);
    expect(a.json()).toMatchObject({
      title: 'Spaced repetition',
      body_markdown: 'Review at growing intervals.',
      tags: ['learning', 'memory'],
      status: 'raw',
    });

    const dir = mkdtempSync(path.join(tmpdir(), 'kg-cli-node-'));
    const file = path.join(dir, 'curve.md');
    writeFileSync(
      file,
      '---\ntitle: Forgetting curve\nsummary: Memory decays.\ntags: [memory]\n---\nExponential decay.\n',
    );
    const b = await run(['nodes', 'create', '--file', file, '--json']);
    expect(b.code, b.stderr).toBe(0);
    expect(b.json()).toMatchObject({
      title: 'Forgetting curve',
      summary: 'Memory decays.',
      tags: ['memory'],
      body_markdown: 'Exponential decay.\n',
    });

    const c = await run(['nodes', 'create', '--file', '-'], '# Leitner boxes\nCards move between boxes.\n');
    expect(c.code, c.stderr).toBe(0);
    const id = c.stdout.trim();
    expect(id).toMatch(/^node_/);
    const got = await run(['nodes', 'get', id]);
    expect(got.code).toBe(0);
    expect(got.stdout).toMatch(/title\s+Leitner boxes/);
    expect(got.stdout).toContain('Cards move between boxes.');
    expect((await run(['nodes', 'get', id, '--json'])).json()).toMatchObject({ id, title: 'Leitner boxes' });
  });

  it('list with every filter, as an aligned table or JSON', async () => {
    const para = (await run(['para', 'create', 'areas', 'Learning', '--json'])).json();
    const assigned = (await run(['nodes', 'create', '--title', 'Assigned node', '--para', para.id, '--json'])).json();
    const table = await run(['nodes', 'list']);
    expect(table.code).toBe(0);
    const [header, ...rows] = table.stdout.trimEnd().split('\n');
    expect(header).toMatch(/^ID\s+TITLE\s+STATUS\s+TAGS\s+UPDATED$/);
    // Aligned: every row's title starts in the header's TITLE column.
    const col = header!.indexOf('TITLE');
    for (const r of rows) expect(r[col - 1]).toBe(' ');
    expect(table.stderr).toMatch(/page 1 of 1 · 4 nodes/);

    const byPara = (await run(['nodes', 'list', '--para', para.id, '--json'])).json();
    expect(byPara.data.map((n: any) => n.id)).toEqual([assigned.id]);
    const orphans = (await run(['nodes', 'list', '--orphan', '--json'])).json();
    expect(orphans.total).toBe(3);
    const notOrphans = (await run(['nodes', 'list', '--no-orphan', '--json'])).json();
    expect(notOrphans.data.map((n: any) => n.id)).toEqual([assigned.id]);
    expect((await run(['nodes', 'list', '--status', 'validated', '--json'])).json().total).toBe(0);
    const paged = (await run(['nodes', 'list', '--per-page', '1', '--page', '2', '--json'])).json();
    expect(paged).toMatchObject({ page: 2, per_page: 1, total: 4 });
    expect(paged.data).toHaveLength(1);
  });

  it('search --mode keyword finds by words', async () => {
    const res = await run(['nodes', 'search', 'growing', 'intervals', '--mode', 'keyword', '--json']);
    expect(res.code, res.stderr).toBe(0);
    expect(res.json().data.map((n: any) => n.title)).toEqual(['Spaced repetition']);
  });

  it('edit in $EDITOR changes what was edited; an untouched file changes nothing', async () => {
    const node = (await run(['nodes', 'create', '--title', 'Draft', '--content', 'old text', '--json'])).json();
    const editor = `sed -i -e 's/^title: .*/title: Final/' -e 's/old text/new text/' -e 's/^status: raw/status: validated/'`;
    const edit = await run(['nodes', 'edit', node.id], undefined, { EDITOR: editor });
    expect(edit.code, edit.stderr).toBe(0);
    expect(edit.stderr).toContain('Updated title, status, content of “Final”');
    expect((await run(['nodes', 'get', node.id, '--json'])).json()).toMatchObject({
      title: 'Final',
      status: 'validated',
      body_markdown: 'new text\n',
    });
    const untouched = await run(['nodes', 'edit', node.id], undefined, { EDITOR: 'true' });
    expect(untouched.stderr).toContain('No changes.');
    const failing = await run(['nodes', 'edit', node.id], undefined, { EDITOR: 'false' });
    expect(failing.code).toBe(1);
    expect(failing.stderr).toContain('nothing was saved');
  });

  it('link keeps other links, unlink removes one, related lists them', async () => {
    const [a, b, c] = await Promise.all(
      ['Hub', 'Spoke one', 'Spoke two'].map(async (title) =>
        (await run(['nodes', 'create', '--title', title, '--json'])).json(),
      ),
    );
    expect((await run(['nodes', 'link', a.id, b.id, '--type', 'supports', '--weight', '0.8'])).code).toBe(0);
    const second = await run(['nodes', 'link', a.id, c.id, '--json']);
    expect(second.json().links).toEqual([
      { target_id: c.id, type: 'related', weight: 1 },
      { target_id: b.id, type: 'supports', weight: 0.8 },
    ]);
    const related = await run(['nodes', 'related', a.id]);
    expect(related.stdout).toMatch(/ID\s+TITLE\s+TYPE/);
    expect(related.stdout).toMatch(/Spoke one\s+supports/);
    // The reverse link exists too.
    expect((await run(['nodes', 'related', b.id, '--json'])).json().nodes.map((n: any) => n.id)).toEqual([a.id]);
    const unlink = await run(['nodes', 'unlink', a.id, b.id, '--json']);
    expect(unlink.json().links).toEqual([{ target_id: c.id, type: 'related', weight: 1 }]);
  });

  it('link refuses to drop a link to a dismissed node (the graph views cannot show its weight)', async () => {
    const [a, b, c] = await Promise.all(
      ['Keeper', 'Dismissed one', 'Newcomer'].map(async (title) =>
        (await run(['nodes', 'create', '--title', title, '--json'])).json(),
      ),
    );
    await run(['nodes', 'link', a.id, b.id, '--weight', '0.3']);
    await run(['nodes', 'edit', b.id], undefined, { EDITOR: `sed -i 's/^status: raw/status: dismissed/'` });
    const res = await run(['nodes', 'link', a.id, c.id]);
    expect(res.code).toBe(1);
    expect(res.stderr).toContain(`links to dismissed node(s) ${b.id}`);
    expect((await run(['nodes', 'related', a.id, '--json'])).json().nodes.map((n: any) => n.id)).toEqual([b.id]);
  });

  it('delete, then get exits 4', async () => {
    const node = (await run(['nodes', 'create', '--title', 'Doomed', '--json'])).json();
    expect((await run(['nodes', 'delete', node.id])).code).toBe(0);
    const gone = await run(['nodes', 'get', node.id]);
    expect(gone.code).toBe(4);
    expect(gone.stderr).toMatch(/^Error: Not found — .*\(HTTP 404\)\n$/);
  });

  it('the API’s field errors are printed (exit 1); with --json as JSON on stderr', async () => {
    const long = 'x'.repeat(501);
    const res = await run(['nodes', 'create', '--title', long]);
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/Error: Invalid request.*\(HTTP 400\)/);
    expect(res.stderr).toMatch(/\n {2}title: /);
    expect(res.stderr).not.toMatch(/\n\s+at /);
    const json = await run(['nodes', 'create', '--title', long, '--json']);
    expect(JSON.parse(json.stderr)).toMatchObject({ status: 400, errors: [{ path: 'title' }] });
  });

  it('usage mistakes exit 2 before any request', async () => {
    for (const args of [
      ['nodes', 'search', 'x', '--mode', 'fuzzy'],
      ['nodes', 'list', '--per-page', '101'],
      ['nodes', 'get'],
      ['nodes', 'list', '--bogus'],
      ['nodes', 'link', 'node_a', 'node_b', '--weight', '0'],
      ['nodes', 'create'],
      ['frobnicate'],
    ]) {
      const res = await run(args);
      expect(res.code, `${args.join(' ')}: ${res.stderr}`).toBe(2);
      expect(res.stderr).toMatch(/error|needs a title/);
    }
  });
});
