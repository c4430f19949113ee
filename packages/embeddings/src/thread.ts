import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { LocalEmbedderOptions } from './local';
import { EmbeddingsError, type EmbedKind, type Embedder } from './port';

/** What the service sends its embedder thread. */
export type ThreadRequest = { type: 'embed'; id: number; texts: string[]; kind: EmbedKind } | { type: 'close' };

/** What the embedder thread answers. */
export type ThreadAnswer =
  | { type: 'ready'; model: string; dimensions: number }
  | { type: 'unavailable'; message: string }
  | { type: 'vectors'; id: number; vectors: Float32Array[] }
  | { type: 'failed'; id: number; message: string };

const ENTRY = new URL('./thread-entry.ts', import.meta.url);
/** The thread runs the TypeScript sources through tsx, as the services do (`node --import tsx`). */
const TSX_LOADER = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;

export interface ThreadedEmbedderOptions extends LocalEmbedderOptions {
  /**
   * The thread's nice value (0-19; Linux, where a thread has its own; elsewhere ignored): above 0
   * the service's other threads get the cores first (at 10 the model gets about a tenth of a
   * core they want), so requests go first while it indexes, and on a quiet machine it still has
   * a core to itself.
   */
  nice?: number | undefined;
}

/** The threaded embedder, and what shows its thread's life. */
export interface ThreadedEmbedder extends Embedder {
  /** Threads started so far (1 until one dies). */
  readonly threadsStarted: number;
  /** Ends the running thread as a crash would: its calls fail (retryably), the next call starts another. */
  terminate(): Promise<void>;
}

interface Thread {
  worker: Worker;
  model: string;
  dimensions: number;
}

/**
 * The local embedder (all-MiniLM-L6-v2, local.ts) in a worker thread of its own. A forward pass
 * is synchronous CPU work on the thread that runs it (~10-40 ms a text on these machines); in
 * the service's main thread it held every request meanwhile (an import's captures, indexed
 * and proposed, took 17 % of that thread). Calls run one after another in the thread, in the
 * order they come (search's embedder queue already puts queries first). A thread that dies
 * fails the calls it held (retryably) and is started again by the next call.
 */
export async function createThreadedEmbedder(options: ThreadedEmbedderOptions = {}): Promise<ThreadedEmbedder> {
  let threadsStarted = 0;
  const pending = new Map<number, { resolve: (v: Float32Array[]) => void; reject: (e: Error) => void }>();
  let nextId = 0;
  let closed = false;

  const failPending = (message: string) => {
    for (const [id, p] of pending) {
      pending.delete(id);
      p.reject(new EmbeddingsError(message, true));
    }
  };

  const start = (): Promise<Thread> => {
    const started = new Promise<Thread>((resolve, reject) => {
      const worker = new Worker(ENTRY, { workerData: options, execArgv: ['--import', TSX_LOADER] });
      threadsStarted += 1;
      worker.unref();
      let ready = false;
      worker.on('message', (m: ThreadAnswer) => {
        if (m.type === 'ready') {
          ready = true;
          resolve({ worker, model: m.model, dimensions: m.dimensions });
        } else if (m.type === 'unavailable') {
          reject(new EmbeddingsError(m.message, false));
        } else {
          const p = pending.get(m.id);
          if (!p) return;
          pending.delete(m.id);
          if (m.type === 'vectors') p.resolve(m.vectors);
          else p.reject(new EmbeddingsError(m.message, false));
        }
      });
      worker.on('error', (err) => {
        if (!ready) reject(new EmbeddingsError(`local embedder thread: ${err.message}`, false, { cause: err }));
        failPending(`local embedder thread failed: ${err.message}`);
      });
      worker.on('exit', (code) => {
        if (thread === started) thread = null;
        if (!ready) reject(new EmbeddingsError(`local embedder thread exited (${code}) before it was ready`, false));
        failPending(`local embedder thread exited (${code})`);
      });
    });
    started.catch(() => {
      if (thread === started) thread = null;
    });
    return started;
  };

  let thread: Promise<Thread> | null = start();
  const first = await thread;

  return {
    model: first.model,
    dimensions: first.dimensions,
    // MiniLM was trained symmetric: queries and passages are embedded the same way.
    modelInput: (text: string) => text,
    async embed(texts: string[], kind: EmbedKind): Promise<Float32Array[]> {
      if (closed) throw new EmbeddingsError('local embedder: closed', false);
      if (texts.length === 0) return [];
      const { worker } = await (thread ??= start());
      const id = nextId++;
      return new Promise((resolve, reject) => {
        pending.set(id, { resolve, reject });
        worker.postMessage({ type: 'embed', id, texts, kind } satisfies ThreadRequest);
      });
    },
    get threadsStarted() {
      return threadsStarted;
    },
    async terminate(): Promise<void> {
      const running = await thread?.catch(() => null);
      await running?.worker.terminate();
    },
    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      const running = await thread?.catch(() => null);
      if (!running) return;
      const exited = new Promise((r) => running.worker.once('exit', r));
      // The thread is unref'd so that it never keeps a process alive; while it closes, it must:
      // a script whose last step is `await close()` would otherwise end with that await unsettled.
      running.worker.ref();
      running.worker.postMessage({ type: 'close' } satisfies ThreadRequest);
      await exited;
      failPending('local embedder: closed');
    },
  };
}
