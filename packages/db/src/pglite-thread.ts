import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { QueryOptions, Results } from '@electric-sql/pglite';
import type { PgliteOpenOptions } from './pglite-open';
import type { ThreadAnswer, ThreadCall, ThreadError, ThreadRequest } from './pglite-thread-protocol';

const ENTRY = new URL('./pglite-thread-entry.ts', import.meta.url);
/** The thread runs the TypeScript sources through tsx, as the services do (`node --import tsx`). */
const TSX_LOADER = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;

/** A statement runner: the database, or one of its transactions. */
export interface PgliteRunner {
  query<T = Record<string, unknown>>(sql: string, params?: unknown[], options?: QueryOptions): Promise<Results<T>>;
  exec(sql: string): Promise<Results[]>;
}

/** A transaction's statement runner, as PGlite hands it to `transaction`'s function. */
export interface PgliteTransaction extends PgliteRunner {
  rollback(): Promise<void>;
  readonly closed: boolean;
}

/** What drizzle and the priority gate use of PGlite, answered by a worker thread. */
export interface ThreadedPglite extends PgliteRunner {
  transaction<T>(fn: (tx: PgliteTransaction) => Promise<T>): Promise<T>;
  close(): Promise<void>;
  /** Ends the thread as a crash would (tests): its calls fail, and so does every later one. */
  terminate(): Promise<void>;
}

export interface PgliteThreadOptions extends PgliteOpenOptions {
  /** Called once if the thread ends unasked (a WebAssembly abort): nothing answers after it. */
  onThreadExit?: (error: Error) => void;
}

/** A PostgreSQL error from the thread: its message and fields (code, detail, constraint…) as PGlite raised them. */
function fromThread(e: ThreadError): Error {
  const { message, name: _name, ...fields } = e;
  const err = Object.assign(new Error(message), fields);
  err.name = 'DatabaseError';
  return err;
}

/**
 * PGlite in a worker thread of its own. PostgreSQL's work on a statement (parse, plan, run,
 * ~0.1-50 ms) is synchronous WebAssembly on the thread that calls it; in the server's main
 * thread it held every request meanwhile, and the server used one of the machine's cores.
 * Statements cross as messages; the priority gate of client.ts chooses which, and lets two
 * wait here at once, so the thread never idles for the main thread's turn;
 * a transaction is BEGIN, its statements and COMMIT (or ROLLBACK when its function throws),
 * run while the gate is held. Values cross by structured clone, so parsers cannot: the types
 * drizzle keeps as text (`parsers` that return their input) are named, and stay text.
 */
export async function openPgliteThread(options: PgliteThreadOptions): Promise<ThreadedPglite> {
  const { onThreadExit, ...data } = options;
  const worker = new Worker(ENTRY, { workerData: data, execArgv: ['--import', TSX_LOADER] });
  const pending = new Map<number, { resolve: (r: Results | Results[] | null) => void; reject: (e: Error) => void }>();
  let nextId = 0;
  let ended: Error | null = null;
  let closing = false;

  const ready = new Promise<void>((resolve, reject) => {
    worker.on('message', (m: ThreadAnswer) => {
      if (m.type === 'ready') return resolve();
      if (m.type === 'unavailable') return reject(fromThread(m.error));
      const p = pending.get(m.id);
      if (!p) return;
      pending.delete(m.id);
      if (m.type === 'done') p.resolve(m.result);
      else p.reject(fromThread(m.error));
    });
    worker.on('error', (err) => {
      ended ??= new Error(`the embedded database's thread failed: ${err.message}`, { cause: err });
      reject(ended);
    });
    worker.on('exit', (code) => {
      ended ??= new Error(`the embedded database's thread ended (exit code ${code})`);
      reject(ended);
      for (const p of pending.values()) p.reject(ended);
      pending.clear();
      if (!closing) onThreadExit?.(ended);
    });
  });
  await ready;
  // Like PGlite in the process, the thread keeps the process alive until closed.

  const send = <R>(call: ThreadCall): Promise<R> => {
    if (ended) return Promise.reject(ended);
    const id = nextId++;
    return new Promise<R>((resolve, reject) => {
      pending.set(id, { resolve: resolve as (r: Results | Results[] | null) => void, reject });
      worker.postMessage({ ...call, id } satisfies ThreadRequest);
    });
  };

  const runner: PgliteRunner = {
    query: <T>(sql: string, params: unknown[] = [], options?: QueryOptions) => {
      if (options?.serializers || options?.blob || options?.onNotice || options?.paramTypes)
        return Promise.reject(new Error('the embedded database thread takes rowMode and parsers only'));
      const rawTypes = Object.keys(options?.parsers ?? {}).map(Number);
      return send<Results<T>>({ op: 'query', sql, params, rowMode: options?.rowMode ?? 'object', rawTypes });
    },
    exec: (sql: string) => send<Results[]>({ op: 'exec', sql }),
  };

  return {
    ...runner,
    async transaction<T>(fn: (tx: PgliteTransaction) => Promise<T>): Promise<T> {
      await runner.exec('BEGIN');
      let closed = false;
      const tx: PgliteTransaction = {
        ...runner,
        get closed() {
          return closed;
        },
        async rollback() {
          closed = true;
          await runner.exec('ROLLBACK');
        },
      };
      try {
        const result = await fn(tx);
        if (!closed) await runner.exec('COMMIT');
        closed = true;
        return result;
      } catch (err) {
        if (!closed) {
          closed = true;
          await runner.exec('ROLLBACK').catch(() => undefined);
        }
        throw err;
      }
    },
    async close() {
      if (ended) return;
      closing = true;
      const exited = new Promise((r) => worker.once('exit', r));
      await send({ op: 'close' });
      await exited;
    },
    async terminate() {
      await worker.terminate();
    },
  };
}
