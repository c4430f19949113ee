import { digest, permanent, type StageResult } from '../result';
import { extractCarried, extractText, quote, TEXT_MODEL } from './carried';
import { decode, type ContentJob } from './content';
import { formatOf } from './formats';
import type { Sandbox } from './sandbox';
import type { Extracted, ExtractInput } from './types';

export type { Extracted, ExtractInput } from './types';

export interface ExtractOptions {
  /** Where every parser of untrusted content runs (sandbox.ts). */
  sandbox: Sandbox;
  /** Wall time of one extraction in the sandbox: PDFs, images (OCR included), anything else. */
  timeoutMs: { pdf: number; image: number; other: number };
}

const looksLikeHtml = (text: string) =>
  /^\s*(<!doctype html|<html[\s>]|<body[\s>]|<(article|div|p|h1)[\s>])/i.test(text);

/**
 * The extract stage: the capture's content as markdown. Bytes (an upload or a fetched page) go
 * by their format, found from magic bytes before the declared type; without bytes, a note or
 * selected text is taken as it is, HTML in raw_content through Readability, and a tweet, video,
 * repo or audio capture keeps what it carries. A selected passage is kept as a quote on top.
 * Whatever parses untrusted content (HTML, PDF, DOCX, DOC, images) runs in the sandbox;
 * only plain text and the capture's own fields are handled here.
 */
export function createExtractStage(options: ExtractOptions) {
  const inSandbox = (job: ContentJob) =>
    options.sandbox.run(
      job,
      job.format === 'pdf'
        ? options.timeoutMs.pdf
        : job.format === 'image'
          ? options.timeoutMs.image
          : options.timeoutMs.other,
    );

  async function run(input: ExtractInput, charset: string | null): Promise<{ out: Extracted; models: string[] }> {
    if (input.bytes && input.bytes.length > 0) {
      const format = formatOf(input.bytes, input.mime);
      if (format === 'text') return { out: extractText(input, decode(input.bytes, charset)), models: [TEXT_MODEL] };
      if (!format) throw permanent(`cannot extract content of type ${input.mime ?? 'unknown'}`);
      return inSandbox({ format, bytes: input.bytes, text: null, charset, url: input.url });
    }
    if (input.raw_content && input.content_type !== 'note' && looksLikeHtml(input.raw_content))
      return inSandbox({ format: 'html', bytes: null, text: input.raw_content, charset: null, url: input.url });
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
