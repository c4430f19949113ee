/** Whitespace runs (newlines included) become one space; the ends are trimmed. */
export const collapseWhitespace = (text: string): string => text.replace(/\s+/g, ' ').trim();

/** Characters per chunk: about 250 MiniLM word pieces of English prose (its window is 256). */
export const CHUNK_CHARS = 1000;
/** Chunks embedded per node at most: the first 16,000 characters of the text count. */
export const MAX_CHUNKS = 16;

/**
 * The passages a node is embedded as (whitespace collapsed). A node whose text fits one chunk
 * (CHUNK_CHARS) is one passage: title, summary and body joined. A longer node is its head
 * (title and summary) as the first passage, then its body cut at word boundaries into chunks
 * of at most CHUNK_CHARS (MAX_CHUNKS − 1 at most). The indexer pools them (poolVectors).
 */
export function nodePassages(node: { title: string; summary: string; body_markdown: string }): string[] {
  const head = [node.title, node.summary].map(collapseWhitespace).filter((s) => s !== '');
  const body = collapseWhitespace(node.body_markdown);
  const whole = [...head, ...(body === '' ? [] : [body])].join('. ');
  if (whole.length <= CHUNK_CHARS) return whole === '' ? [] : [whole];
  const chunks: string[] = head.length > 0 ? [head.join('. ').slice(0, CHUNK_CHARS)] : [];
  let rest = body;
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

/**
 * One vector for a node's passages: half the first passage (the head: title and summary, for a
 * long node), half the mean of the others, re-normalised to unit length (a zero sum stays
 * zero). A plain mean of 1,000-character chunks let a long body drown the title: a
 * 4,000-character node was no longer found by its own title above the semantic floor.
 */
export function poolVectors(vectors: Float32Array[]): number[] {
  const first = vectors[0];
  if (!first) throw new Error('poolVectors: no vectors');
  const rest = vectors.slice(1);
  const sum = Float64Array.from(first, (x) => (rest.length === 0 ? x : x / 2));
  for (const v of rest) for (let i = 0; i < sum.length; i += 1) sum[i]! += (v[i] ?? 0) / (2 * rest.length);
  let norm = 0;
  for (const x of sum) norm += x * x;
  norm = Math.sqrt(norm);
  return Array.from(sum, (x) => (norm === 0 ? 0 : x / norm));
}
