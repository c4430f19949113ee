import { describe, expect, it } from 'vitest';
import { ApiProblem, Unreachable, type Api, type Capture, type CreateCapture } from './api';
import { CaptureQueue, MAX_QUEUED } from './queue';
import type { KeyValueStorage } from './settings';

function memoryStorage(): KeyValueStorage & { data: Map<string, unknown> } {
  const data = new Map<string, unknown>();
  return {
    data,
    async get(key) {
      return data.has(key) ? { [key]: structuredClone(data.get(key)) } : {};
    },
    async set(items) {
      for (const [k, v] of Object.entries(items)) data.set(k, structuredClone(v));
    },
  };
}

const body = (title: string): CreateCapture => ({
  title,
  url: `https://example.com/${title}`,
  content_type: 'article',
  source: 'browser-extension',
});

/** A server that answers as told: `down` throws Unreachable, a number answers that status. */
function server() {
  const made: string[] = [];
  const state = { answer: 'up' as 'up' | 'down' | number };
  const api = {
    create: async (b: CreateCapture) => {
      await new Promise((r) => setTimeout(r, 1));
      if (state.answer === 'down') throw new Unreachable('offline');
      if (typeof state.answer === 'number') throw new ApiProblem(state.answer, `HTTP ${state.answer}`, null);
      made.push(b.title);
      return { id: `cap_${made.length}`, title: b.title } as unknown as Capture;
    },
  } as unknown as Api;
  return { api, made, state };
}

describe('the offline queue', () => {
  it('sends at once when the server answers, keeps what it cannot send, and sends it later in order', async () => {
    const storage = memoryStorage();
    const queue = new CaptureQueue(storage);
    const { api, made, state } = server();
    expect((await queue.save(api, body('a'))).kind).toBe('saved');
    state.answer = 'down';
    expect(await queue.save(api, body('b'))).toMatchObject({ kind: 'queued', waiting: 1 });
    state.answer = 503;
    expect(await queue.save(api, body('c'))).toMatchObject({ kind: 'queued', waiting: 2 });
    // Back up: a new capture goes behind the waiting ones, never before them.
    state.answer = 'up';
    expect(await queue.save(api, body('d'))).toMatchObject({ kind: 'queued', waiting: 3 });
    expect((await queue.flush(api)).map((c) => c.title)).toEqual(['b', 'c', 'd']);
    expect(made).toEqual(['a', 'b', 'c', 'd']);
    expect(await queue.waiting()).toEqual([]);
  });

  it('stops a flush at the first capture it cannot send, which stays first in line with its attempts', async () => {
    const storage = memoryStorage();
    const queue = new CaptureQueue(storage);
    const { api, state } = server();
    state.answer = 'down';
    await queue.save(api, body('a'));
    await queue.save(api, body('b'));
    expect(await queue.flush(api)).toEqual([]);
    const [head] = await queue.waiting();
    expect(head).toMatchObject({ body: { title: 'a' }, attempts: 1, last_error: 'the server cannot be reached' });
    expect((await queue.waiting()).map((q) => q.body.title)).toEqual(['a', 'b']);
  });

  it('keeps captures when the key is refused (401), and never resends one the server refused (400)', async () => {
    const queue = new CaptureQueue(memoryStorage());
    const { api, state } = server();
    state.answer = 401;
    expect(await queue.save(api, body('a'))).toMatchObject({
      kind: 'queued',
      reason: 'the API key was refused: set a new one in the options',
    });
    state.answer = 400;
    expect(await queue.flush(api)).toEqual([]);
    expect(await queue.waiting()).toEqual([]);
    expect(await queue.refused()).toMatchObject([{ title: 'a', url: 'https://example.com/a', error: 'HTTP 400' }]);
    expect(await queue.save(api, body('b'))).toMatchObject({ kind: 'refused', error: 'HTTP 400' });
  });

  it('queues without a server set up, up to a bound', async () => {
    const queue = new CaptureQueue(memoryStorage());
    for (let i = 0; i < MAX_QUEUED; i++) expect((await queue.save(null, body(`n${i}`))).kind).toBe('queued');
    expect(await queue.save(null, body('over'))).toMatchObject({ kind: 'refused' });
    expect(await queue.waiting()).toHaveLength(MAX_QUEUED);
  });

  it('serialises saves and flushes: concurrent calls neither lose nor repeat a capture', async () => {
    const storage = memoryStorage();
    const queue = new CaptureQueue(storage);
    const { api, made, state } = server();
    state.answer = 'down';
    await Promise.all(Array.from({ length: 10 }, (_, i) => queue.save(api, body(`q${i}`))));
    state.answer = 'up';
    await Promise.all([queue.flush(api), queue.flush(api), queue.save(api, body('late')), queue.flush(api)]);
    expect(made).toEqual([...Array.from({ length: 10 }, (_, i) => `q${i}`), 'late']);
    expect(await queue.waiting()).toEqual([]);
  });

  it('survives a restart: what waits is read back from storage by a new queue', async () => {
    const storage = memoryStorage();
    const { api, state, made } = server();
    state.answer = 'down';
    await new CaptureQueue(storage).save(api, body('kept'));
    state.answer = 'up';
    await new CaptureQueue(storage).flush(api);
    expect(made).toEqual(['kept']);
  });
});
