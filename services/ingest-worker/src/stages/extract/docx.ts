import mammoth from 'mammoth';
import { permanent, StageError } from '../result';
import { htmlToMarkdown } from './markdown';
import type { Extracted } from './types';
import { openZip, type ZipLimits } from './zip-guard';

export const DOCX_MODEL = 'mammoth@1.13+turndown@7';

/**
 * DOCX to markdown through mammoth (to semantic HTML) and Turndown. Mammoth reads the parts
 * it needs through the bounded zip reader (zip-guard.ts), never through its own unzip: every
 * part is inflated as a stream with a running count and a ratio cap, whatever headers say.
 */
export async function extractDocx(bytes: Uint8Array, limits: ZipLimits): Promise<Extracted> {
  const zip = await openZip(bytes, limits);
  // mammoth's own reader interface (lib/unzip.js takes `{ file }`): exists, and read with an encoding.
  const file = {
    exists: (name: string) => zip.exists(name),
    read: async (name: string, encoding?: string) => {
      const data = await zip.read(name);
      if (encoding === 'base64') return data.toString('base64');
      return encoding ? new TextDecoder(encoding).decode(data) : new Uint8Array(data);
    },
    write: () => {
      throw new Error('read only');
    },
    toArrayBuffer: () => {
      throw new Error('read only');
    },
  };
  let result: { value: string; messages: { type: string; message: string }[] };
  try {
    result = await mammoth.convertToHtml({ file } as unknown as Parameters<typeof mammoth.convertToHtml>[0]);
  } catch (err) {
    if (err instanceof StageError) throw err;
    throw permanent(`not a readable DOCX: ${(err as Error).message}`);
  } finally {
    zip.close();
  }
  const markdown = htmlToMarkdown(result.value);
  const heading = /^#\s+(.+)$/m.exec(markdown)?.[1]?.trim() ?? null;
  return {
    markdown,
    title: heading,
    format: 'docx',
    metadata: { zip_entries: zip.entries, inflated_bytes: zip.inflatedBytes },
    notes: result.messages.filter((m) => m.type === 'error').map((m) => `mammoth: ${m.message}`),
  };
}
