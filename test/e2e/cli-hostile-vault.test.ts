import { chmodSync, existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
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

/** A note whose front matter writes `marker` on the importing machine if anything evaluates it. */
const evil = (language: string, marker: string) =>
  `---${language}\n{ title: (require('node:fs').writeFileSync(${JSON.stringify(marker)}, 'ran'), 'Pwned') }\n---\nI ran.\n`;

const titles = async (config: string) =>
  (await kg(['nodes', 'list', '--per-page', '100', '--json'], { config }))
    .json()
    .data.map((n: any) => n.title)
    .sort();

describe('a hostile vault', () => {
  it('kg import refuses non-YAML front matter without running it; the other notes import', async () => {
    const { config } = await cliUser('hostile-vault');
    const root = mkdtempSync(path.join(tmpdir(), 'kg-vault-hostile-'));
    const marker = path.join(root, '..', `${path.basename(root)}-marker`);
    write(root, 'notes/evil.md', evil('js', marker));
    write(root, 'notes/evil-long.md', evil('javascript', marker));
    write(root, 'coffee.md', evil('coffee', marker));
    write(root, 'Good.md', '---\ntitle: Good note\ntags: [fine]\n---\nLinks to [[Other]].\n');
    write(root, 'Other.md', 'Plain.\n');

    const res = await kg(['import', root], { config });
    expect(existsSync(marker)).toBe(false);
    expect(res.code).toBe(1);
    expect(res.stdout).toMatch(/notes\s+5\ncreated\s+2\nupdated\s+0\nskipped\s+0\nfailed\s+3\nlinks\s+1 between notes/);
    expect(res.stderr).toContain(
      'failed notes/evil.md: front matter in "js" is refused; only YAML front matter is read',
    );
    expect(res.stderr).toContain(
      'failed notes/evil-long.md: front matter in "javascript" is refused; only YAML front matter is read',
    );
    expect(res.stderr).toContain(
      'failed coffee.md: front matter in "coffee" is refused; only YAML front matter is read',
    );
    expect(await titles(config)).toEqual(['Good note', 'Other']);

    const json = await kg(['import', root, '--json'], { config });
    expect(existsSync(marker)).toBe(false);
    expect(json.json()).toMatchObject({ notes: 5, created: 0, skipped: 2 });
    expect(json.json().failed.sort((a: any, b: any) => a.file.localeCompare(b.file))).toEqual([
      { file: 'coffee.md', error: 'front matter in "coffee" is refused; only YAML front matter is read' },
      { file: 'notes/evil-long.md', error: 'front matter in "javascript" is refused; only YAML front matter is read' },
      { file: 'notes/evil.md', error: 'front matter in "js" is refused; only YAML front matter is read' },
    ]);
  });

  it('kg nodes create --file and kg nodes edit refuse it too, and change nothing', async () => {
    const { config } = await cliUser('hostile-file');
    const dir = mkdtempSync(path.join(tmpdir(), 'kg-hostile-file-'));
    const marker = path.join(dir, 'marker');
    const file = path.join(dir, 'evil.md');
    writeFileSync(file, evil('js', marker));

    const created = await kg(['nodes', 'create', '--file', file], { config });
    expect(existsSync(marker)).toBe(false);
    expect(created.code).toBe(2);
    expect(created.stderr).toContain(`${file}: front matter in "js" is refused; only YAML front matter is read`);
    const piped = await kg(['nodes', 'create', '--file', '-'], { config, input: evil('js', marker) });
    expect(existsSync(marker)).toBe(false);
    expect(piped.code).toBe(2);
    expect(piped.stderr).toContain('stdin: front matter in "js" is refused');
    expect(await titles(config)).toEqual([]);

    const node = (
      await kg(['nodes', 'create', '--title', 'Kept', '--content', 'as it was', '--json'], { config })
    ).json();
    // An "editor" that replaces the file with JavaScript front matter.
    const editor = path.join(dir, 'editor.sh');
    writeFileSync(editor, `#!/bin/sh\ncp ${JSON.stringify(file)} "$1"\n`);
    chmodSync(editor, 0o755);
    const edited = await kg(['nodes', 'edit', node.id], { config, env: { EDITOR: editor, VISUAL: undefined } });
    expect(existsSync(marker)).toBe(false);
    expect(edited.code).toBe(2);
    expect(edited.stderr).toContain(`${node.id}.md: front matter in "js" is refused; only YAML front matter is read`);
    const after = (await kg(['nodes', 'get', node.id, '--json'], { config })).json();
    expect(after).toMatchObject({ title: 'Kept', body_markdown: 'as it was' });
  });
});
