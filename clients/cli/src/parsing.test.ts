import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tokenFromPaste } from './login/magic-link.ts';
import { nodeToFile, parseNodeFile } from './node-file.ts';
import { fileNameFor } from './vault/export-vault.ts';
import { noteChanges } from './vault/import-vault.ts';
import { linkResolver, listMarkdown, readNote } from './vault/read-vault.ts';

describe('magic-link paste', () => {
  it('takes the link from the mail, a query-string link, or the token', () => {
    expect(tokenFromPaste(' https://kg.example.com/sign-in#token=abc_DEF-1 \n')).toBe('abc_DEF-1');
    expect(tokenFromPaste('http://x/sign-in?token=a%2Bb&x=1')).toBe('a+b');
    expect(tokenFromPaste('abc')).toBe('abc');
    expect(() => tokenFromPaste('two words')).toThrow(/neither a sign-in link nor a token/);
  });
});

describe('node files', () => {
  it('round-trip through front matter', () => {
    const file = nodeToFile({
      title: 'A: title',
      summary: 'S',
      tags: ['x', 'y'],
      status: 'validated',
      body_markdown: 'Body\n',
    });
    expect(parseNodeFile(file)).toMatchObject({
      title: 'A: title',
      summary: 'S',
      tags: ['x', 'y'],
      status: 'validated',
      content: 'Body\n',
    });
  });
  it('tags as a string, # dropped; description as summary; unknown status ignored', () => {
    expect(parseNodeFile('---\ntags: "#a, b c"\ndescription: D\nstatus: weird\n---\nx')).toMatchObject({
      tags: ['a', 'b', 'c'],
      summary: 'D',
      status: undefined,
    });
  });
});

describe('vault', () => {
  it('reads notes, skipping hidden folders, and resolves links by path, name and alias', async () => {
    const root = mkdtempSync(path.join(tmpdir(), 'kg-vault-unit-'));
    mkdirSync(path.join(root, '.trash'));
    mkdirSync(path.join(root, 'sub'));
    writeFileSync(path.join(root, '.trash', 'Gone.md'), 'x');
    writeFileSync(path.join(root, 'sub', 'Deep.md'), '---\naliases: [Abyss]\nkg_id: node_1\n---\n[[Top]]');
    writeFileSync(path.join(root, 'Top.md'), '---\nlinks: ["[[Abyss]]"]\n---\n[[sub/Deep]] [[nowhere]]');
    writeFileSync(path.join(root, 'notes.txt'), 'not markdown');
    const files = await listMarkdown(root);
    expect(files).toEqual(['sub/Deep.md', 'Top.md']);
    const notes = await Promise.all(files.map((f) => readNote(root, f)));
    expect(notes[0]).toMatchObject({ name: 'Deep', title: 'Deep', kgId: 'node_1', aliases: ['Abyss'], links: ['Top'] });
    expect(notes[1]!.links).toEqual(['sub/Deep', 'nowhere', 'Abyss']);
    const resolve = linkResolver(notes);
    expect(resolve('SUB/deep')?.name).toBe('Deep');
    expect(resolve('abyss')?.name).toBe('Deep');
    expect(resolve('top')?.name).toBe('Top');
    expect(resolve('nowhere')).toBeUndefined();
  });

  it('a note changes only what it says differently', () => {
    const node = { title: 'T', body_markdown: 'Body', summary: 'S', tags: ['a'], status: 'raw' } as any;
    const note = { title: 'T', content: 'Body\n', summary: undefined, tags: undefined, status: undefined } as any;
    expect(noteChanges(note, node)).toBeNull();
    expect(noteChanges({ ...note, tags: ['a', 'b'], status: 'validated' }, node)).toEqual({
      tags: ['a', 'b'],
      status: 'validated',
    });
    expect(noteChanges({ ...note, content: 'New' }, node)).toEqual({ content: 'New' });
  });

  it('export file names avoid reserved characters', () => {
    expect(fileNameFor('a/b: c?')).toBe('a-b- c-');
    expect(fileNameFor('...')).toBe('Untitled');
    expect(fileNameFor('x'.repeat(300))).toHaveLength(120);
  });
});
