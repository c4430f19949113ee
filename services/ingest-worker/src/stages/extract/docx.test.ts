import { docxBomb, docxRatioBomb } from '@kg/test-hostile-files';
import { describe, expect, it } from 'vitest';
import { StageError } from '../result';
import { extractDocx } from './docx';
import { makeDocx, makeZip, makeZipBomb } from './fixtures';
import { openZip, RATIO_FLOOR } from './zip-guard';

const limits = { maxInflatedBytes: 1_000_000, maxEntries: 100, maxRatio: 100 };
const refusal = (p: Promise<unknown>) =>
  p.then(
    () => {
      throw new Error('not refused');
    },
    (e: unknown) => {
      expect(e).toBeInstanceOf(StageError);
      expect((e as StageError).retryable).toBe(false);
      return (e as StageError).message;
    },
  );

describe('docx extraction', () => {
  it('turns a real minimal DOCX into markdown with its heading as title', async () => {
    const docx = await makeDocx('Meeting notes', ['We agreed on the graph schema.', 'Next: ship captures.']);
    const out = await extractDocx(docx, limits);
    expect(out.format).toBe('docx');
    expect(out.markdown).toBe('# Meeting notes\n\nWe agreed on the graph schema.\n\nNext: ship captures.');
    expect(out.title).toBe('Meeting notes');
    expect(out.metadata.zip_entries).toBe(3);
  });

  it('refuses a zip bomb from its central directory, before inflating anything', async () => {
    const bomb = await makeZipBomb(5_000_000);
    expect(bomb.length).toBeLessThan(20_000);
    expect(await refusal(extractDocx(bomb, limits))).toBe(
      'archive inflates to more than 1000000 bytes (a zip bomb?); refused before decompression',
    );
  });

  it('refuses an archive with too many entries and bytes that are no zip', async () => {
    const docx = await makeDocx('x', ['y']);
    await expect(openZip(docx, { ...limits, maxInflatedBytes: 1e9, maxEntries: 2 })).rejects.toThrow(
      'archive holds 3 entries, more than the 2 allowed',
    );
    await expect(openZip(Buffer.from('PK\x03\x04 not really'), limits)).rejects.toThrow(/^not a readable zip archive/);
  });
});

describe('inflating a DOCX as a stream, whatever its headers declare', () => {
  it('stops a part that inflates past the size its headers declare (1 GiB declared as 1,000 bytes)', async () => {
    const bomb = docxBomb({ inflatedBytes: 1024 ** 3, declaredBytes: 1_000 });
    const zip = await openZip(bomb, { ...limits, maxInflatedBytes: 100 * 1024 * 1024 });
    expect(await refusal(zip.read('word/document.xml'))).toBe(
      'word/document.xml inflates past the 1,000 bytes its header declares (a zip bomb?); refused',
    );
    // Refused within a chunk or so of the declared size, not after a gigabyte.
    expect(zip.inflatedBytes).toBeLessThan(1_000 + 64 * 1024);
    expect(await refusal(extractDocx(bomb, { ...limits, maxInflatedBytes: 100 * 1024 * 1024 }))).toMatch(
      /declares .* refused$/,
    );
  });

  it('stops a part whose headers tell the truth once its inflation ratio passes the cap', async () => {
    const bomb = docxRatioBomb({ inflatedBytes: 50 * 1024 * 1024 });
    const zip = await openZip(bomb, { ...limits, maxInflatedBytes: 100 * 1024 * 1024 });
    expect(await refusal(zip.read('word/document.xml'))).toBe(
      'word/document.xml inflates past the 100:1 compression ratio limit (a zip bomb?); refused',
    );
    expect(zip.inflatedBytes).toBeGreaterThan(RATIO_FLOOR);
    expect(zip.inflatedBytes).toBeLessThan(8 * 1024 * 1024);
  });

  it('stops an archive whose parts together inflate past the limit, whatever each declares', async () => {
    // Two honest parts of 600 kB each (ratio within the cap below the floor) against a 1 MB limit.
    const zip = await openZip(
      await makeZip({ 'a.xml': Buffer.alloc(600_000, 'a'), 'b.xml': Buffer.alloc(600_000, 'b') }),
      { ...limits, maxInflatedBytes: 2_000_000 },
    );
    expect((await zip.read('a.xml')).length).toBe(600_000);
    const tight = await openZip(
      await makeZip({ 'a.xml': Buffer.alloc(600_000, 'a'), 'b.xml': Buffer.alloc(600_000, 'b') }),
      { ...limits, maxInflatedBytes: 2_000_000 },
    );
    // The same archive read twice over counts twice: the limit is on bytes inflated, not on entries.
    await tight.read('a.xml');
    await tight.read('b.xml');
    await tight.read('a.xml');
    expect(await refusal(tight.read('b.xml'))).toBe('archive inflates past the 2,000,000 bytes limit; refused');
  });

  it('reads stored (uncompressed) entries too', async () => {
    const zip = await openZip(docxRatioBomb({ inflatedBytes: 10_000 }), limits);
    expect(zip.exists('[Content_Types].xml')).toBe(true);
    expect((await zip.read('[Content_Types].xml')).toString()).toContain('<Types');
    expect((await zip.read('word/document.xml')).length).toBe(10_000);
  });
});
