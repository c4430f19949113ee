import { extractText, getDocumentProxy, getMeta } from 'unpdf';
import { permanent } from '../result';
import type { Extracted } from './types';

export const PDF_MODEL = 'unpdf@1.8 (pdf.js text layer)';

/**
 * PDF text (its text layer, page by page) through unpdf (pdf.js). It runs in the extraction
 * sandbox (sandbox.ts), a child process whose memory, CPU and wall time the OS and the parent
 * bound: pdf.js inflates a FlateDecode stream in full, and nothing else stops a bomb.
 */
export async function extractPdf(bytes: Uint8Array): Promise<Extracted> {
  let totalPages: number;
  let pages: string[];
  let info: Record<string, unknown>;
  try {
    const pdf = await getDocumentProxy(new Uint8Array(bytes));
    ({ totalPages, text: pages } = await extractText(pdf, { mergePages: false }));
    info = ((await getMeta(pdf).catch(() => ({ info: {} }))).info ?? {}) as Record<string, unknown>;
  } catch (err) {
    if (err instanceof RangeError) throw err; // an allocation that failed: the sandbox names the memory limit
    throw permanent(`not a readable PDF: ${(err as Error)?.message ?? String(err)}`);
  }
  pages = pages.map((p) => p.trim());
  const markdown = pages.filter(Boolean).join('\n\n');
  const title = typeof info.Title === 'string' && info.Title.trim() ? info.Title.trim() : null;
  return {
    markdown,
    title,
    format: 'pdf',
    metadata: {
      pages: totalPages || pages.length,
      ...(typeof info.Author === 'string' && info.Author ? { author: info.Author } : {}),
    },
    notes: markdown ? [] : ['the PDF has no text layer (a scan?); no OCR of PDF pages'],
  };
}
