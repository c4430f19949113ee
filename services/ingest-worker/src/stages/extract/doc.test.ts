import { describe, expect, it } from 'vitest';
import { extractDoc } from './doc';
import { makeDoc } from './fixtures';
import { formatOf } from './formats';

describe('doc extraction', () => {
  it('reads the body of a real minimal Word 97 file, one paragraph a line', async () => {
    const doc = makeDoc(['Field notes from the marsh.', 'Two herons and a kingfisher.']);
    expect(formatOf(doc, 'application/msword')).toBe('doc');
    const out = await extractDoc(doc);
    expect(out).toEqual({
      markdown: 'Field notes from the marsh.\nTwo herons and a kingfisher.',
      title: null,
      format: 'doc',
      metadata: {},
      notes: [],
    });
  });

  it('refuses an OLE signature with nothing behind it, permanently', async () => {
    await expect(extractDoc(Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 1, 2, 3]))).rejects.toThrow(/^not a readable DOC/);
  });
});
