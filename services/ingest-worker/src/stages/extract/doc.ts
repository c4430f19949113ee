import WordExtractor from 'word-extractor';
import { permanent } from '../result';
import type { Extracted } from './types';

export const DOC_MODEL = 'word-extractor@1.0';

/** Legacy Word (.doc, OLE compound file): the body text through word-extractor, paragraphs kept. */
export async function extractDoc(bytes: Uint8Array): Promise<Extracted> {
  let body: string;
  try {
    body = (await new WordExtractor().extract(Buffer.from(bytes))).getBody();
  } catch (err) {
    throw permanent(`not a readable DOC: ${(err as Error).message}`);
  }
  const markdown = body
    .replace(/\r\n?/g, '\n')
    .split(/\n/)
    .map((line) => line.trim())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
  return { markdown, title: null, format: 'doc', metadata: {}, notes: [] };
}
