import { describe, expect, it } from 'vitest';
import { CreateNodeInput } from '@kg/contracts';
import {
  IMPORT_HEADING,
  importOf,
  importParaItem,
  importSection,
  MAX_FOLDER_CHARS,
  MAX_NOTE_CHARS,
  mergeTags,
  nodeContent,
} from './import-metadata';

const valid = {
  import_id: 'imp_01jd8x6q1bf5r3v2m9w7k4t0za',
  folder: ['Bookmarks bar', 'Tech', 'Databases'],
  tags: ['Bookmarks bar', 'Tech', 'Databases', 'postgres'],
  added_at: '2019-03-04T10:11:12Z',
  note: 'Read the MVCC part again.',
  para: true,
};

describe('metadata.import', () => {
  it('reads a well-formed import record as sent (the date normalised to ISO-8601 UTC)', () => {
    expect(importOf({ import: valid })).toEqual({ ...valid, added_at: '2019-03-04T10:11:12.000Z' });
  });

  it('a capture without an import record, or with one that is not an object, is not imported', () => {
    for (const metadata of [{}, { import: null }, { import: 'x' }, { import: [1, 2] }, { import: 42 }, undefined])
      expect(importOf(metadata as Record<string, unknown> | undefined)).toBeNull();
  });

  it('hostile records are bounded, never thrown: huge tag lists, 10,000-char folders, non-strings, a 1 MB note', () => {
    const imp = importOf({
      import: {
        import_id: { $ne: 1 },
        folder: ['x'.repeat(10_000), 7, null, { a: 1 }, '  ', 'y\0z'],
        tags: [...Array.from({ length: 100_000 }, (_, i) => `tag${i}`), 'a'.repeat(10_000)],
        added_at: 'yesterday',
        note: 'n'.repeat(1024 * 1024),
        para: 'yes',
      },
    })!;
    expect(imp.import_id).toBeNull();
    expect(imp.folder).toEqual(['x'.repeat(MAX_FOLDER_CHARS), 'yz']);
    expect(imp.tags.length).toBeLessThanOrEqual(256);
    expect(imp.added_at).toBeNull();
    expect(imp.note).toHaveLength(MAX_NOTE_CHARS);
    expect(imp.para).toBe(false);
    // Fields of the wrong type entirely: absent, never an error.
    expect(importOf({ import: { folder: 'a/b', tags: { 0: 'x' }, note: 5, added_at: 1e12, para: 1 } })).toEqual({
      import_id: null,
      folder: [],
      tags: [],
      added_at: null,
      note: null,
      para: false,
    });
  });
});

describe('mergeTags', () => {
  it('keeps every tag once: the import’s first, then the inferred ones, case-insensitively deduplicated', () => {
    expect(mergeTags(['Tech', 'Databases', ' postgres '], ['postgres', 'mvcc', 'tech', 'index'])).toEqual([
      'Tech',
      'Databases',
      'postgres',
      'mvcc',
      'index',
    ]);
  });

  it('is what graph accepts unchanged: trimmed, ≤ 64 characters, ≤ 64 tags, no blanks, no duplicates', () => {
    const imported = ['  ', '\0', 'a'.repeat(300), ...Array.from({ length: 200 }, (_, i) => `t${i}`)];
    const merged = mergeTags(imported, ['inferred']);
    expect(merged).toHaveLength(64);
    expect(merged[0]).toBe('a'.repeat(64));
    expect(CreateNodeInput.shape.tags.parse(merged)).toEqual(merged);
    expect(new Set(merged).size).toBe(merged.length);
  });
});

describe('the node of an imported bookmark', () => {
  it('carries the date, the folder path and the note in a section of its content', () => {
    const imp = importOf({ import: valid })!;
    expect(importSection(imp)).toBe(
      `${IMPORT_HEADING}\n\n- Added: 2019-03-04T10:11:12.000Z\n- Folder: Bookmarks bar / Tech / Databases\n\n### Note\n\nRead the MVCC part again.\n`,
    );
    expect(nodeContent('# Page\n\nBody\n', imp, 1_000_000)).toBe(`# Page\n\nBody\n\n${importSection(imp)}`);
    expect(nodeContent('Body', null, 1_000_000)).toBe('Body');
  });

  it('the section always fits: the page’s text is cut instead', () => {
    const imp = importOf({ import: { ...valid, note: 'n'.repeat(5000) } })!;
    const content = nodeContent('p'.repeat(1_000_000), imp, 1_000_000);
    expect(content.length).toBeLessThanOrEqual(1_000_000);
    expect(content.endsWith(`${'n'.repeat(5000)}\n`)).toBe(true);
  });

  it('asks for a PARA resource named after the innermost folder, only when para is true and there is a folder', () => {
    expect(importParaItem(importOf({ import: valid }))).toEqual({ category: 'resources', label: 'Databases' });
    expect(importParaItem(importOf({ import: { ...valid, para: false } }))).toBeNull();
    expect(importParaItem(importOf({ import: { ...valid, folder: [] } }))).toBeNull();
    expect(importParaItem(null)).toBeNull();
  });
});
