import mammoth from 'mammoth';
import { permanent } from '../result';
import { htmlToMarkdown } from './markdown';
import type { Extracted } from './types';
import { checkZip, type ZipLimits } from './zip-guard';

export const DOCX_MODEL = 'mammoth@1.13+turndown@7';

/** DOCX to markdown through mammoth (to semantic HTML) and Turndown, after the zip-bomb check. */
export async function extractDocx(bytes: Uint8Array, limits: ZipLimits): Promise<Extracted> {
  const zip = await checkZip(bytes, limits);
  let result: { value: string; messages: { type: string; message: string }[] };
  try {
    result = await mammoth.convertToHtml({ buffer: Buffer.from(bytes) });
  } catch (err) {
    throw permanent(`not a readable DOCX: ${(err as Error).message}`);
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
