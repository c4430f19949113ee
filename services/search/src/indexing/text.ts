/** Whitespace runs (newlines included) become one space; the ends are trimmed. */
export const collapseWhitespace = (text: string): string => text.replace(/\s+/g, ' ').trim();

/** Characters per chunk: about 250 MiniLM word pieces of English prose (its window is 256). */
export const CHUNK_CHARS = 1000;
/** Chunks embedded per node at most: the first 16,000 characters of the text count. */
export const MAX_CHUNKS = 16;

/**
 * The passages a node is embedded as: title, summary and body joined (whitespace
 * collapsed), cut into chunks of at most CHUNK_CHARS at word boundaries. The indexer pools
 * their vectors into one (mean, re-normalised): see docs/API.md "Semantic search".
 */
export function nodePassages(node: { title: string; summary: string; body_markdown: string }): string[] {
  const text = collapseWhitespace([node.title, node.summary, node.body_markdown].filter((s) => s !== '').join('. '));
  if (text === '') return [];
  const chunks: string[] = [];
  let rest = text;
  while (rest !== '' && chunks.length < MAX_CHUNKS) {
    if (rest.length <= CHUNK_CHARS) {
      chunks.push(rest);
      break;
    }
    const space = rest.lastIndexOf(' ', CHUNK_CHARS);
    const cut = space > CHUNK_CHARS / 2 ? space : CHUNK_CHARS;
    chunks.push(rest.slice(0, cut).trim());
    rest = rest.slice(cut).trim();
  }
  return chunks;
}

/** Mean of unit vectors, re-normalised to unit length (a zero mean stays zero). */
export function poolVectors(vectors: Float32Array[]): number[] {
  const first = vectors[0];
  if (!first) throw new Error('poolVectors: no vectors');
  const sum = new Float64Array(first.length);
  for (const v of vectors) for (let i = 0; i < sum.length; i += 1) sum[i]! += v[i] ?? 0;
  let norm = 0;
  for (const x of sum) norm += x * x;
  norm = Math.sqrt(norm);
  return Array.from(sum, (x) => (norm === 0 ? 0 : x / norm));
}
