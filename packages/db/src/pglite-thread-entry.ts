// Entry of the embedded database's worker thread (pglite-thread.ts starts it): PGlite opens
// here and every statement runs here, one at a time in the order they come (the priority gate
// on the other side chose that order), so the server's event loop never waits for PostgreSQL.
import { parentPort, workerData } from 'node:worker_threads';
import type { ParserOptions, PGlite } from '@electric-sql/pglite';
import { openPglite } from './pglite-open';
import type { ThreadAnswer, ThreadData, ThreadError, ThreadRequest } from './pglite-thread-protocol';

const port = parentPort!;
const keepText = (value: string) => value;

/** The error's message and its string fields (PGlite's DatabaseError: code, detail, constraint…). */
function toThreadError(err: unknown): ThreadError {
  const e = err instanceof Error ? err : new Error(String(err));
  const fields: ThreadError = { message: e.message };
  for (const [key, value] of Object.entries(e)) if (typeof value === 'string') fields[key] = value;
  return fields;
}

async function answer(db: PGlite, m: ThreadRequest): Promise<ThreadAnswer> {
  try {
    if (m.op === 'exec') return { type: 'done', id: m.id, result: await db.exec(m.sql) };
    if (m.op === 'close') {
      await db.close();
      return { type: 'done', id: m.id, result: null };
    }
    const parsers: ParserOptions = Object.fromEntries(m.rawTypes.map((oid) => [oid, keepText]));
    return { type: 'done', id: m.id, result: await db.query(m.sql, m.params, { rowMode: m.rowMode, parsers }) };
  } catch (err) {
    return { type: 'failed', id: m.id, error: toThreadError(err) };
  }
}

try {
  const db = await openPglite(workerData as ThreadData);
  port.on('message', (m: ThreadRequest) => {
    void answer(db, m).then((a) => {
      port.postMessage(a);
      if (m.op === 'close') port.close();
    });
  });
  port.postMessage({ type: 'ready' } satisfies ThreadAnswer);
} catch (err) {
  port.postMessage({ type: 'unavailable', error: toThreadError(err) } satisfies ThreadAnswer);
}
