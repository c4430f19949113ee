import type { Format } from './formats';
import type { Extracted } from './types';
import type { ZipLimits } from './zip-guard';

/** One extraction the sandbox runs: untrusted bytes (or HTML text) of a known format. */
export interface ContentJob {
  format: Exclude<Format, 'text'>;
  /** The content; for `html`, bytes in `charset` or, from a capture's raw content, text. */
  bytes: Uint8Array | null;
  text: string | null;
  charset: string | null;
  url: string | null;
}

/** What an extraction may use, sent to the sandbox with each job. */
export interface ContentSettings {
  zip: ZipLimits;
  ocrEnabled: boolean;
  /** Limit handed to tesseract's recognition; the sandbox's own wall time limit ends it in any case. */
  ocrTimeoutMs: number;
}

export function decode(bytes: Uint8Array, charset: string | null): string {
  try {
    return new TextDecoder(charset ?? 'utf-8').decode(bytes);
  } catch {
    return new TextDecoder('utf-8').decode(bytes);
  }
}

/**
 * Parses untrusted content by its format: runs inside the extraction sandbox (sandbox-child.ts),
 * never in a service's heap. Each format's parser is imported when a job needs it: a sandbox
 * process does one job, and loads only what that job reads.
 */
export async function extractContent(
  job: ContentJob,
  settings: ContentSettings,
): Promise<{ out: Extracted; models: string[] }> {
  const bytes = job.bytes ?? new Uint8Array();
  switch (job.format) {
    case 'html': {
      const { extractHtml, HTML_MODEL } = await import('./html');
      return { out: extractHtml(job.text ?? decode(bytes, job.charset), job.url), models: [HTML_MODEL] };
    }
    case 'pdf': {
      const { extractPdf, PDF_MODEL } = await import('./pdf');
      return { out: await extractPdf(bytes), models: [PDF_MODEL] };
    }
    case 'docx': {
      const { extractDocx, DOCX_MODEL } = await import('./docx');
      return { out: await extractDocx(bytes, settings.zip), models: [DOCX_MODEL] };
    }
    case 'doc': {
      const { extractDoc, DOC_MODEL } = await import('./doc');
      return { out: await extractDoc(bytes), models: [DOC_MODEL] };
    }
    case 'image': {
      const [{ extractImage }, { createOcr }] = await Promise.all([import('./image'), import('./ocr')]);
      const ocr = createOcr(settings.ocrEnabled);
      try {
        const { models, ...out } = await extractImage(bytes, { ocr, ocrTimeoutMs: settings.ocrTimeoutMs });
        return { out, models };
      } finally {
        await ocr.close();
      }
    }
  }
}
