import { describe, expect, it } from 'vitest';
import { StageError } from '../result';
import { extractDocx } from './docx';
import { makeDocx, makeZipBomb } from './fixtures';
import { checkZip } from './zip-guard';

const limits = { maxInflatedBytes: 1_000_000, maxEntries: 100 };

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
    const err = await extractDocx(bomb, limits).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StageError);
    expect((err as StageError).retryable).toBe(false);
    expect((err as StageError).message).toBe(
      'archive inflates to more than 1000000 bytes (a zip bomb?); refused before decompression',
    );
  });

  it('refuses an archive with too many entries and bytes that are no zip', async () => {
    const docx = await makeDocx('x', ['y']);
    await expect(checkZip(docx, { maxInflatedBytes: 1e9, maxEntries: 2 })).rejects.toThrow(
      'archive holds 3 entries, more than the 2 allowed',
    );
    await expect(checkZip(Buffer.from('PK\x03\x04 not really'), limits)).rejects.toThrow(/^not a readable zip archive/);
  });
});
