import { afterEach, describe, expect, it } from 'vitest';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createOpenAiEmbedder } from './openai';
import { createEmbedder } from './create';
import { EmbeddingsError } from './port';

type Handler = (req: IncomingMessage & { json: any }, res: ServerResponse) => void;
interface Fake {
  url: string;
  requests: { url: string; headers: IncomingMessage['headers']; json: any }[];
}
const servers: Server[] = [];
/** The error a promise rejects with (fails the test when it resolves). */
const rejection = (p: Promise<unknown>): Promise<EmbeddingsError> =>
  p.then(
    () => {
      throw new Error('expected a rejection');
    },
    (err: unknown) => err as EmbeddingsError,
  );
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

/** A small local /v1/embeddings server: records every request, answers with `handler`. */
async function serve(handler: Handler): Promise<Fake> {
  const requests: Fake['requests'] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const json = body ? JSON.parse(body) : null;
      requests.push({ url: req.url!, headers: req.headers, json });
      handler(Object.assign(req, { json }), res);
    });
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests };
}
const send = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
};
/** Deterministic 3-d vectors: [length, 1, 0], answered in reverse order to check `index`. */
const embeddings: Handler = (req, res) =>
  send(res, 200, {
    object: 'list',
    model: req.json.model,
    data: (req.json.input as string[])
      .map((t, index) => ({ object: 'embedding', index, embedding: [t.length, 1, 0] }))
      .reverse(),
  });

describe('OpenAI-compatible embedder', () => {
  it('posts model, input, input_type and the bearer key to /v1/embeddings and maps data by index, normalised', async () => {
    const fake = await serve(embeddings);
    const e = await createOpenAiEmbedder({ baseUrl: `${fake.url}/`, model: 'e5-small', apiKey: 'sk-test-key' });
    expect(e.dimensions).toBe(3);
    expect(e.model).toBe('e5-small');
    const [a, b] = await e.embed(['abcd', 'x'], 'passage');
    expect(Array.from(a!)).toEqual([expect.closeTo(4 / Math.sqrt(17), 6), expect.closeTo(1 / Math.sqrt(17), 6), 0]);
    expect(Array.from(b!)).toEqual([expect.closeTo(Math.SQRT1_2, 6), expect.closeTo(Math.SQRT1_2, 6), 0]);
    const last = fake.requests.at(-1)!;
    expect(last.url).toBe('/v1/embeddings');
    expect(last.headers.authorization).toBe('Bearer sk-test-key');
    expect(last.json).toEqual({
      model: 'e5-small',
      input: ['abcd', 'x'],
      encoding_format: 'float',
      input_type: 'passage',
    });
    await e.embed(['q'], 'query');
    expect(fake.requests.at(-1)!.json.input_type).toBe('query');
    expect(await e.embed([], 'query')).toEqual([]);
  });

  it('accepts a base URL that already ends in /v1, sends no Authorization without a key, and batches', async () => {
    const fake = await serve(embeddings);
    const e = await createOpenAiEmbedder({ baseUrl: `${fake.url}/v1`, model: 'm', batchSize: 2 });
    const vectors = await e.embed(['a', 'bb', 'ccc', 'dddd', 'eeeee'], 'passage');
    expect(vectors.map((v) => v[0]! / v[1]!)).toEqual([1, 2, 3, 4, 5].map((n) => expect.closeTo(n, 5)));
    const calls = fake.requests.slice(1);
    expect(calls.map((r) => r.json.input.length)).toEqual([2, 2, 1]);
    expect(calls.every((r) => r.url === '/v1/embeddings' && r.headers.authorization === undefined)).toBe(true);
  });

  it('stops sending input_type when the server refuses it', async () => {
    const fake = await serve((req, res) =>
      req.json.input_type
        ? send(res, 400, { error: { message: 'Unrecognized request argument supplied: input_type' } })
        : embeddings(req, res),
    );
    const e = await createOpenAiEmbedder({ baseUrl: fake.url, model: 'text-embedding-3-small' });
    await e.embed(['hello'], 'query');
    expect(fake.requests.at(-1)!.json).not.toHaveProperty('input_type');
  });

  it('retries 429 (honouring Retry-After) and 5xx, then succeeds', async () => {
    let n = 0;
    const fake = await serve((req, res) => {
      n++;
      if (n === 2) return send(res, 429, { error: 'slow down' }, { 'retry-after': '0' });
      if (n === 3) return send(res, 503, { error: 'busy' });
      embeddings(req, res);
    });
    const e = await createOpenAiEmbedder({ baseUrl: fake.url, model: 'm', backoffMs: 1 });
    expect(await e.embed(['abc'], 'query')).toHaveLength(1);
    expect(fake.requests).toHaveLength(4);
  });

  it('gives up after the retries with a retryable error naming the status, never the key', async () => {
    let n = 0;
    const fake = await serve((req, res) =>
      n++ === 0 ? embeddings(req, res) : send(res, 500, { error: 'bad key sk-secret-123 somewhere' }),
    );
    const e = await createOpenAiEmbedder({
      baseUrl: fake.url,
      model: 'm',
      apiKey: 'sk-secret-123',
      retries: 2,
      backoffMs: 1,
    });
    const err = await rejection(e.embed(['a'], 'query'));
    expect(err).toBeInstanceOf(EmbeddingsError);
    expect(err.retryable).toBe(true);
    expect(err.message).toMatch(/answered 500 after 3 attempts/);
    expect(err.message).not.toContain('sk-secret-123');
    expect(fake.requests).toHaveLength(4);
  });

  it('does not retry a 401 and says so clearly', async () => {
    const fake = await serve((_req, res) => send(res, 401, { error: { message: 'invalid api key' } }));
    const err = await rejection(createOpenAiEmbedder({ baseUrl: fake.url, model: 'm', apiKey: 'sk-live-abcdef' }));
    expect(err).toBeInstanceOf(EmbeddingsError);
    expect(err.retryable).toBe(false);
    expect(err.message).toMatch(/answered 401: .*invalid api key/);
    expect(fake.requests).toHaveLength(1);
  });

  it('times out a silent server and reports an unreachable one', async () => {
    const fake = await serve(() => undefined);
    await expect(
      createOpenAiEmbedder({ baseUrl: fake.url, model: 'm', timeoutMs: 50, retries: 1, backoffMs: 1 }),
    ).rejects.toThrow(/no answer within 50 ms after 2 attempts/);
    const closed = await serve(embeddings);
    await new Promise((r) => servers.pop()!.close(r));
    await expect(createOpenAiEmbedder({ baseUrl: closed.url, model: 'm', retries: 0 })).rejects.toThrow(
      /cannot reach the server \(ECONNREFUSED\)/,
    );
  });

  it('rejects malformed responses clearly', async () => {
    const cases: [unknown, RegExp][] = [
      [{ nope: true }, /expected 1 embeddings in "data", got none/],
      [{ data: [] }, /expected 1 embeddings in "data", got 0/],
      [{ data: [{ index: 0, embedding: ['x'] }] }, /no numeric "embedding"/],
      [{ data: [{ index: 7, embedding: [1] }] }, /index 7 out of range/],
    ];
    for (const [body, message] of cases) {
      const fake = await serve((_req, res) => send(res, 200, body));
      await expect(createOpenAiEmbedder({ baseUrl: fake.url, model: 'm' })).rejects.toThrow(message);
    }
  });

  it('is what createEmbedder builds for EMBEDDINGS_PROVIDER=openai', async () => {
    const fake = await serve(embeddings);
    const e = await createEmbedder({
      EMBEDDINGS_PROVIDER: 'openai',
      EMBEDDINGS_BASE_URL: fake.url,
      EMBEDDINGS_MODEL: 'm2',
    });
    expect(e.model).toBe('m2');
    await e.close();
    await expect(e.embed(['a'], 'query')).rejects.toThrow(/closed/);
    await expect(createEmbedder({ EMBEDDINGS_PROVIDER: 'openai', EMBEDDINGS_MODEL: 'm' })).rejects.toThrow(
      /EMBEDDINGS_BASE_URL is required/,
    );
  });
});
