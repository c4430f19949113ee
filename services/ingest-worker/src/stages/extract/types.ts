import type { CaptureContentType } from './formats';

/** What the extract stage reads: the capture's own fields and, when there are any, its bytes. */
export interface ExtractInput {
  content_type: CaptureContentType;
  /** Media type of `bytes` (from the upload or the fetch), lower-cased, without parameters. */
  mime: string | null;
  bytes: Uint8Array | null;
  /** Where the bytes came from, for resolving relative links in HTML. */
  url: string | null;
  title: string;
  selected_text: string | null;
  raw_content: string | null;
  why: string | null;
}

/** Markdown made from a capture, and what was learnt on the way. */
export interface Extracted {
  markdown: string;
  /** A title found in the content (the article's, the document's), if any. */
  title: string | null;
  /** The format the text came from: html, pdf, docx, doc, image, text, or carried (the capture's own fields). */
  format: string;
  metadata: Record<string, unknown>;
  /** Honest notes on what could not be done (no OCR, no text layer…). */
  notes: string[];
}
