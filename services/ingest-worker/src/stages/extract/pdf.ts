import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { permanent, transient } from '../result';
import type { Extracted } from './types';

export const PDF_MODEL = 'unpdf@1.8 (pdf.js text layer)';

const unpdfPath = createRequire(import.meta.url).resolve('unpdf');

/**
 * Runs in a worker thread, so a hostile or huge PDF cannot stall the worker's event loop and
 * can be stopped: the parent terminates the thread when the time limit passes.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
(async () => {
  const { extractText, getDocumentProxy, getMeta } = require(workerData.unpdf);
  const pdf = await getDocumentProxy(new Uint8Array(workerData.bytes));
  const { totalPages, text } = await extractText(pdf, { mergePages: false });
  const meta = await getMeta(pdf).catch(() => ({ info: {} }));
  parentPort.postMessage({ ok: true, totalPages, pages: text, info: meta.info || {} });
})().catch((err) => parentPort.postMessage({ ok: false, message: String((err && err.message) || err) }));
`;

interface WorkerAnswer {
  ok: boolean;
  message?: string;
  totalPages?: number;
  pages?: string[];
  info?: Record<string, unknown>;
}

export interface PdfOptions {
  timeoutMs: number;
}

/** PDF text (its text layer, page by page) through unpdf in a worker thread with a time limit. */
export async function extractPdf(bytes: Uint8Array, options: PdfOptions): Promise<Extracted> {
  const answer = await new Promise<WorkerAnswer>((resolve, reject) => {
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { unpdf: unpdfPath, bytes: Buffer.from(bytes) },
      resourceLimits: { maxOldGenerationSizeMb: 256 },
    });
    const timer = setTimeout(() => {
      void worker.terminate();
      reject(transient(`PDF extraction exceeded ${options.timeoutMs} ms`));
    }, options.timeoutMs);
    worker.once('message', (m: WorkerAnswer) => {
      clearTimeout(timer);
      void worker.terminate();
      resolve(m);
    });
    worker.once('error', (err) => {
      clearTimeout(timer);
      reject(permanent(`PDF extraction failed: ${err.message}`));
    });
  });
  if (!answer.ok) throw permanent(`not a readable PDF: ${answer.message}`);
  const pages = (answer.pages ?? []).map((p) => p.trim());
  const markdown = pages.filter(Boolean).join('\n\n');
  const info = answer.info ?? {};
  const title = typeof info.Title === 'string' && info.Title.trim() ? info.Title.trim() : null;
  return {
    markdown,
    title,
    format: 'pdf',
    metadata: {
      pages: answer.totalPages ?? pages.length,
      ...(typeof info.Author === 'string' && info.Author ? { author: info.Author } : {}),
    },
    notes: markdown ? [] : ['the PDF has no text layer (a scan?); no OCR of PDF pages'],
  };
}
