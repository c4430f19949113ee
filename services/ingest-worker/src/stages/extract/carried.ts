import type { Extracted, ExtractInput } from './types';

export const TEXT_MODEL = 'passthrough@1';

/** A note, or selected text: the text as it is. */
export function extractText(input: ExtractInput, text: string): Extracted {
  return { markdown: text.trim(), title: null, format: 'text', metadata: {}, notes: [] };
}

/**
 * A tweet, video, repo or audio capture (or any capture without content): only what the
 * capture itself carries (its selected text, raw content and URL); the note says so.
 */
export function extractCarried(input: ExtractInput): Extracted {
  const parts = [input.selected_text ? quote(input.selected_text) : null, input.raw_content?.trim() || null];
  if (input.url) parts.push(`Source: <${input.url}>`);
  return {
    markdown: parts.filter(Boolean).join('\n\n'),
    title: null,
    format: 'carried',
    metadata: input.url ? { url: input.url } : {},
    notes: [`${input.content_type} capture: only what the capture carries (URL, title, selected text, raw content)`],
  };
}

/** Selected text as a markdown quote. */
export const quote = (text: string) =>
  text
    .trim()
    .split('\n')
    .map((line) => `> ${line}`.trimEnd())
    .join('\n');
