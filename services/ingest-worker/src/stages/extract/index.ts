import { digest, permanent, type StageResult } from '../result';
import { extractCarried, extractText, quote, TEXT_MODEL } from './carried';
import { DOC_MODEL, extractDoc } from './doc';
import { DOCX_MODEL, extractDocx } from './docx';
import { formatOf } from './formats';
import { extractHtml, HTML_MODEL } from './html';
import { extractImage } from './image';
import type { Ocr } from './ocr';
import { extractPdf, PDF_MODEL } from './pdf';
import type { Extracted, ExtractInput } from './types';
import type { ZipLimits } from './zip-guard';

export type { Extracted, ExtractInput } from './types';

export interface ExtractOptions {
  pdfTimeoutMs: number;
  ocrTimeoutMs: number;
  zip: ZipLimits;
  ocr: Ocr;
}

const looksLikeHtml = (text: string) =>
  /^\s*(<!doctype html|<html[\s>]|<body[\s>]|<(article|div|p|h1)[\s>])/i.test(text);

function decode(bytes: Uint8Array, charset: string | null): string {
  try {
    return new TextDecoder(charset ?? 'utf-8').decode(bytes);
  } catch {
    return new TextDecoder('utf-8').decode(bytes);
  }
}

/**
 * The extract stage: the capture's content as markdown. Bytes (an upload or a fetched page) go
 * by their format, found from magic bytes before the declared type; without bytes, a note or
 * selected text is taken as it is, HTML in raw_content through Readability, and a tweet, video,
 * repo or audio capture keeps what it carries. A selected passage is kept as a quote on top.
 */
export function createExtractStage(options: ExtractOptions) {
  async function run(input: ExtractInput, charset: string | null): Promise<{ out: Extracted; models: string[] }> {
    if (input.bytes && input.bytes.length > 0) {
      const format = formatOf(input.bytes, input.mime);
      switch (format) {
        case 'html':
          return { out: extractHtml(decode(input.bytes, charset), input.url), models: [HTML_MODEL] };
        case 'pdf':
          return { out: await extractPdf(input.bytes, { timeoutMs: options.pdfTimeoutMs }), models: [PDF_MODEL] };
        case 'docx':
          return { out: await extractDocx(input.bytes, options.zip), models: [DOCX_MODEL] };
        case 'doc':
          return { out: await extractDoc(input.bytes), models: [DOC_MODEL] };
        case 'image': {
          const { models, ...out } = await extractImage(input.bytes, options);
          return { out, models };
        }
        case 'text':
          return { out: extractText(input, decode(input.bytes, charset)), models: [TEXT_MODEL] };
        default:
          throw permanent(`cannot extract content of type ${input.mime ?? 'unknown'}`);
      }
    }
    if (input.raw_content && input.content_type !== 'note' && looksLikeHtml(input.raw_content))
      return { out: extractHtml(input.raw_content, input.url), models: [HTML_MODEL] };
    if (input.content_type === 'note' || input.content_type === 'article' || input.content_type === 'pdf') {
      const text = input.raw_content ?? input.selected_text;
      if (text) return { out: extractText(input, text), models: [TEXT_MODEL] };
    }
    return { out: extractCarried(input), models: [TEXT_MODEL] };
  }

  return async function extractStage(
    input: ExtractInput,
    charset: string | null = null,
  ): Promise<StageResult<Extracted>> {
    const { out, models } = await run(input, charset);
    const fromContent = out.format !== 'carried' && out.format !== 'text';
    const markdown =
      fromContent && input.selected_text
        ? [quote(input.selected_text), out.markdown].filter(Boolean).join('\n\n')
        : out.markdown;
    return {
      output: { ...out, markdown },
      model: models.join(' + '),
      input_digest: input.bytes
        ? digest(input.bytes)
        : digest({ t: input.content_type, r: input.raw_content, s: input.selected_text, u: input.url }),
    };
  };
}
export type ExtractStage = ReturnType<typeof createExtractStage>;
