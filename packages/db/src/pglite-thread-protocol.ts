import type { Results } from '@electric-sql/pglite';
import type { PgliteOpenOptions } from './pglite-open';

/** What the embedded database's thread is started with (pglite-thread.ts). */
export type ThreadData = PgliteOpenOptions;

/**
 * One statement for the thread. `rawTypes`: the type OIDs whose values come back as
 * PostgreSQL's text, unparsed (what drizzle asks of timestamps, dates and intervals with
 * parsers that return their input; functions do not cross threads).
 */
export type ThreadCall =
  | { op: 'query'; sql: string; params: unknown[]; rowMode: 'array' | 'object'; rawTypes: number[] }
  | { op: 'exec'; sql: string }
  | { op: 'close' };

/** A call as it is sent: numbered, so that its answer finds it. */
export type ThreadRequest = ThreadCall & { id: number };

/** A PostgreSQL error as it crosses the thread: its message and every field the server sent. */
export type ThreadError = { message: string } & Record<string, string | undefined>;

export type ThreadAnswer =
  | { type: 'ready' }
  | { type: 'unavailable'; error: ThreadError }
  | { type: 'done'; id: number; result: Results | Results[] | null }
  | { type: 'failed'; id: number; error: ThreadError };
