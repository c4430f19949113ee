/**
 * A large synthetic tenant for the search speed run, built around real topics: each of the
 * known-item set's items (Python stdlib docstrings, dataset.py) is a topic; node i belongs to
 * topic i mod T, its text is a sample of the topic's words plus Zipf filler, and its vector is
 * the topic's real embedding plus Gaussian noise (cosine about 0.85 to it). Queries are the
 * items' one-line summaries, embedded by the service's real query embedder, so they land
 * among their topic's nodes as a real query would. Only the index is timed, not embedding.
 */
import { execFileSync } from 'node:child_process';
import { typeid } from 'typeid-js';
import type { Embedder } from '@kg/embeddings';

export interface Topic {
  title: string;
  content: string;
  query: string;
  centroid: Float32Array;
}

export interface SyntheticNode {
  id: string;
  title: string;
  body: string;
  topic: number;
}

export function mulberry32(seed: number) {
  let t = seed >>> 0;
  return () => {
    t = (t + 0x6d2b79f5) >>> 0;
    let r = Math.imul(t ^ (t >>> 15), 1 | t);
    r = (r + Math.imul(r ^ (r >>> 7), 61 | r)) ^ r;
    return ((r ^ (r >>> 14)) >>> 0) / 4294967296;
  };
}

/** The known-item set's items as topics, each with its passage embedding as centroid. */
export async function loadTopics(embedder: Embedder, count = 600): Promise<Topic[]> {
  const here = new URL('.', import.meta.url).pathname;
  const raw = execFileSync('python3', [`${here}dataset.py`, String(count)], { encoding: 'utf8' });
  const items = raw
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { title: string; content: string; query: string });
  const topics: Topic[] = [];
  for (const i of items) {
    const [centroid] = await embedder.embed([`${i.title}. ${i.content}`], 'passage');
    topics.push({ title: i.title, content: i.content, query: i.query, centroid: centroid! });
  }
  return topics;
}

const SYLLABLES = ['ka', 'lo', 'mi', 'tu', 've', 'ro', 'sa', 'ni', 'po', 'de', 'gu', 'fe', 'zi', 'ba', 'ho', 'ju'];
const filler = (r: number) => {
  let w = 'q';
  for (let n = r, i = 0; i < 4; i++, n = Math.floor(n / 16)) w += SYLLABLES[n % 16];
  return w;
};

/** `n` nodes over the topics: half of the topic's words (in order) and 15 filler words each. */
export function generateNodes(topics: Topic[], n: number, seed = 11): SyntheticNode[] {
  const rand = mulberry32(seed);
  const zipf = () => Math.floor(Math.exp(rand() * Math.log(20_000))) - 1;
  const nodes: SyntheticNode[] = [];
  for (let i = 0; i < n; i += 1) {
    const topic = i % topics.length;
    const words = topics[topic]!.content.split(/\s+/).filter(() => rand() < 0.5);
    const fill = Array.from({ length: 15 }, () => filler(zipf()));
    nodes.push({
      id: typeid('node').toString(),
      title: `${topics[topic]!.title} ${fill.slice(0, 2).join(' ')}`,
      body: `${words.join(' ')} ${fill.slice(2).join(' ')}`.slice(0, 2000),
      topic,
    });
  }
  return nodes;
}

/** The topic's centroid plus Gaussian noise of σ per dimension, L2-normalised. */
export function noisyVector(centroid: Float32Array, rand: () => number, sigma = 0.032): number[] {
  const v = new Array<number>(centroid.length);
  let norm = 0;
  for (let k = 0; k < centroid.length; k += 1) {
    // Box–Muller
    const g = Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand());
    v[k] = centroid[k]! + sigma * g;
    norm += v[k]! * v[k]!;
  }
  norm = Math.sqrt(norm);
  return v.map((x) => x / norm);
}
