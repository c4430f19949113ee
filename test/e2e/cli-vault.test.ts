import { mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { cliUser, kg } from './support/cli';

// Every step is a kg process (a second or more on a loaded machine): more than the e2e default of 30 s.
vi.setConfig({ testTimeout: 180_000 });

function write(root: string, file: string, text: string) {
  mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
  writeFileSync(path.join(root, file), text);
}

/** A small Obsidian vault: front matter, aliases, folders, headings, embeds, code, a hidden folder. */
function smallVault(): string {
  const root = mkdtempSync(path.join(tmpdir(), 'kg-vault-'));
  write(root, '.obsidian/app.json', '{}');
  write(root, '.obsidian/Ignored.md', 'never imported');
  write(
    root,
    'Coffee.md',
    '---\ntags: [drinks, "#morning"]\naliases: [Java]\n---\nCoffee goes with [[Espresso]], [[Projects/Brewing|brewing]], [[Missing note]] and ![[photo.png]].\n\n```\n[[Not a link]]\n```\n',
  );
  write(root, 'Espresso.md', '# Espresso\nA concentrated [[coffee]] drink; see [[Java#History]] and `[[code]]`.\n');
  write(
    root,
    'Projects/Brewing.md',
    '---\ntitle: Brewing guide\nsummary: How to brew\nstatus: validated\n---\nSteps.\n',
  );
  write(root, 'Alone.md', 'No links here.\n');
  return root;
}

const byTitle = (nodes: any[]) => new Map(nodes.map((n) => [n.title, n]));

describe('kg import / export', () => {
  it('imports notes as nodes and wiki links as links; a second run changes nothing', async () => {
    const { config } = await cliUser('vault');
    const root = smallVault();
    const first = await kg(['import', root], { config });
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(
      /notes\s+4\ncreated\s+4\nupdated\s+0\nskipped\s+0\nfailed\s+0\nlinks\s+2 between notes, 1 to missing notes/,
    );

    const nodes = byTitle((await kg(['nodes', 'list', '--per-page', '100', '--json'], { config })).json().data);
    expect([...nodes.keys()].sort()).toEqual(['Alone', 'Brewing guide', 'Coffee', 'Espresso']);
    expect(nodes.get('Coffee')).toMatchObject({ tags: ['drinks', 'morning'] });
    expect(nodes.get('Brewing guide')).toMatchObject({
      summary: 'How to brew',
      status: 'validated',
      body_markdown: 'Steps.\n',
    });
    const related = async (title: string) =>
      (await kg(['nodes', 'related', nodes.get(title).id, '--json'], { config }))
        .json()
        .nodes.map((n: any) => [n.title, n.relationship_type])
        .sort();
    expect(await related('Coffee')).toEqual([
      ['Brewing guide', 'references'],
      ['Espresso', 'references'],
    ]);
    expect(await related('Espresso')).toEqual([['Coffee', 'references']]);
    expect(await related('Alone')).toEqual([]);

    const second = await kg(['import', root, '--json'], { config });
    expect(second.json()).toMatchObject({ notes: 4, created: 0, updated: 0, skipped: 4, failed: [] });

    // An edited note and a removed link: exactly that note (and the link's other end) change.
    write(root, 'Espresso.md', '# Espresso\nA concentrated drink, now without links.\n');
    const third = await kg(['import', root, '--json'], { config });
    expect(third.json()).toMatchObject({ created: 0, failed: [] });
    // Coffee still links to Espresso, so the link stays (links are one relationship seen from both ends).
    expect(await related('Espresso')).toEqual([['Coffee', 'references']]);
    write(root, 'Coffee.md', 'Coffee, alone now.\n');
    const fourth = await kg(['import', root, '--json'], { config });
    expect(fourth.json()).toMatchObject({ created: 0, updated: 1, skipped: 3 });
    expect(await related('Coffee')).toEqual([]);
    expect(await related('Espresso')).toEqual([]);
  });

  it('keeps links to nodes outside the vault, and export → import round-trips to the same nodes', async () => {
    const { config } = await cliUser('roundtrip');
    const outside = (await kg(['nodes', 'create', '--title', 'Made in the app', '--json'], { config })).json();
    const root = smallVault();
    expect((await kg(['import', root], { config })).code).toBe(0);
    const coffee = (await kg(['nodes', 'search', 'Coffee', '--mode', 'keyword', '--json'], { config }))
      .json()
      .data.find((n: any) => n.title === 'Coffee');
    await kg(['nodes', 'link', coffee.id, outside.id, '--type', 'cites', '--weight', '0.4'], { config });
    write(root, 'Coffee.md', 'Coffee goes with [[Espresso]] only.\n');
    expect((await kg(['import', root], { config })).code).toBe(0);
    const links = (await kg(['nodes', 'related', coffee.id, '--json'], { config }))
      .json()
      .nodes.map((n: any) => n.title)
      .sort();
    expect(links).toEqual(['Espresso', 'Made in the app']);

    const out = mkdtempSync(path.join(tmpdir(), 'kg-export-'));
    const exp = await kg(['export', out, '--json'], { config });
    expect(exp.json()).toEqual({ nodes: 5, written: 5, unchanged: 0 });
    expect(readdirSync(out).sort()).toEqual([
      'Alone.md',
      'Brewing guide.md',
      'Coffee.md',
      'Espresso.md',
      'Made in the app.md',
    ]);
    const text = readFileSync(path.join(out, 'Coffee.md'), 'utf8');
    expect(text).toContain(`kg_id: ${coffee.id}`);
    expect(text).toMatch(/links:\n {2}- '\[\[Espresso\]\]'\n {2}- '\[\[Made in the app\]\]'/);
    expect(text.endsWith('Coffee goes with [[Espresso]] only.\n')).toBe(true);
    expect((await kg(['export', out, '--json'], { config })).json()).toEqual({ nodes: 5, written: 0, unchanged: 5 });
    const back = await kg(['import', out, '--json'], { config });
    expect(back.json()).toMatchObject({ notes: 5, created: 0, updated: 0, skipped: 5, failed: [] });
  });

  it('a note the API refuses is reported (exit 1) and the others are imported', async () => {
    const { config } = await cliUser('vault-bad');
    const root = mkdtempSync(path.join(tmpdir(), 'kg-vault-bad-'));
    write(root, 'Good.md', 'fine\n');
    write(root, 'Bad.md', `---\ntitle: ${'t'.repeat(501)}\n---\nbody\n`);
    const res = await kg(['import', root], { config });
    expect(res.code).toBe(1);
    expect(res.stdout).toMatch(/created\s+1/);
    expect(res.stderr).toMatch(/failed Bad\.md: Invalid request.*title: /);
    expect((await kg(['import', '/nonexistent/vault'], { config })).code).toBe(2);
  });

  it('a vault of 1,000 notes imports in one command, and again as a no-op', async () => {
    const { config } = await cliUser('vault-1000');
    const root = mkdtempSync(path.join(tmpdir(), 'kg-vault-1000-'));
    for (let i = 0; i < 1000; i++) {
      const links = [1, 7, 31].map((k) => `[[Note ${(i + k) % 1000}]]`).join(', ');
      write(
        root,
        `folder-${i % 10}/Note ${i}.md`,
        `---\ntags: [t${i % 20}]\n---\n# Note ${i}\nAbout topic ${i % 50}. See ${links}.\n`,
      );
    }
    const started = Date.now();
    const first = await kg(['import', root, '--json'], { config, timeoutMs: 600_000 });
    const seconds = (Date.now() - started) / 1000;
    expect(first.code, first.stderr).toBe(0);
    expect(first.json()).toMatchObject({
      notes: 1000,
      created: 1000,
      failed: [],
      links: { total: 3000, unresolved: 0 },
    });
    const again = Date.now();
    const second = await kg(['import', root, '--json'], { config, timeoutMs: 600_000 });
    expect(second.json()).toMatchObject({ created: 0, updated: 0, skipped: 1000, failed: [] });
    console.log(
      `kg import of 1,000 notes (3,000 links): ${seconds.toFixed(1)} s; unchanged re-import ${((Date.now() - again) / 1000).toFixed(1)} s`,
    );
  }, 1_200_000);
});
