import {
  appendFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import type { VectorPayload } from './port';

/** One point as the log stores it: the vector as base64 of its float32 bytes. */
export interface LoggedPoint {
  id: string;
  vector: Float32Array;
  payload: VectorPayload;
}

type Entry =
  | { op: 'collection'; dimensions: number }
  | { op: 'upsert'; points: Array<{ id: string; v: string; payload: VectorPayload }> }
  | { op: 'delete'; ids: string[] };

const encode = (v: Float32Array): string => Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('base64');
const decode = (s: string): Float32Array => {
  const bytes = Buffer.from(s, 'base64');
  const copy = new Uint8Array(bytes.byteLength);
  copy.set(bytes);
  return new Float32Array(copy.buffer);
};

/** The collections persisted under `dir` (one `<name>.vlog` each). */
export function listLogs(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith('.vlog'))
    .map((f) => f.slice(0, -'.vlog'.length));
}

/**
 * Append-only log of one collection under a folder: `<name>.vlog`, one JSON line per
 * change (collection header, upsert, delete). Appends are synchronous, so a change is on
 * disk before the adapter's promise resolves. Replaying the log rebuilds the collection; a
 * torn last line (a crash mid-append) is ignored. When the log holds more than twice the
 * live points (plus 1,000 lines), it is rewritten as a snapshot through a temporary file
 * and an atomic rename.
 */
export class CollectionLog {
  readonly #path: string;
  #lines = 0;

  constructor(dir: string, name: string) {
    if (!/^[A-Za-z0-9_.-]+$/.test(name)) throw new Error(`vectors: collection name ${name} is not a safe file name`);
    mkdirSync(dir, { recursive: true });
    this.#path = join(dir, `${name}.vlog`);
  }

  /** The stored collection, or undefined when none was ever written. */
  load(): { dimensions: number; points: Map<string, LoggedPoint> } | undefined {
    if (!existsSync(this.#path)) return undefined;
    const lines = readFileSync(this.#path, 'utf8').split('\n');
    let dimensions: number | undefined;
    const points = new Map<string, LoggedPoint>();
    for (const line of lines) {
      if (line === '') continue;
      let entry: Entry;
      try {
        entry = JSON.parse(line) as Entry;
      } catch {
        break; // a torn last line: everything before it is intact
      }
      this.#lines += 1;
      if (entry.op === 'collection') dimensions = entry.dimensions;
      else if (entry.op === 'upsert')
        for (const p of entry.points) points.set(p.id, { id: p.id, vector: decode(p.v), payload: p.payload });
      else for (const id of entry.ids) points.delete(id);
    }
    return dimensions === undefined ? undefined : { dimensions, points };
  }

  /** Deletes the collection's log (and a snapshot left half-written); a missing one is no error. */
  remove(): void {
    rmSync(this.#path, { force: true });
    rmSync(`${this.#path}.tmp`, { force: true });
    this.#lines = 0;
  }

  create(dimensions: number): void {
    this.#write([{ op: 'collection', dimensions }]);
  }

  upsert(points: LoggedPoint[]): void {
    this.#append({ op: 'upsert', points: points.map((p) => ({ id: p.id, v: encode(p.vector), payload: p.payload })) });
  }

  delete(ids: string[]): void {
    if (ids.length > 0) this.#append({ op: 'delete', ids });
  }

  /** Rewrites the log as a snapshot when it has grown well past the live points. */
  maybeCompact(dimensions: number, live: Iterable<LoggedPoint>, size: number): void {
    if (this.#lines <= 2 * size + 1000) return;
    const entries: Entry[] = [{ op: 'collection', dimensions }];
    let batch: LoggedPoint[] = [];
    const flush = () => {
      if (batch.length === 0) return;
      entries.push({ op: 'upsert', points: batch.map((p) => ({ id: p.id, v: encode(p.vector), payload: p.payload })) });
      batch = [];
    };
    for (const point of live) {
      batch.push(point);
      if (batch.length === 500) flush();
    }
    flush();
    this.#write(entries);
  }

  #append(entry: Entry): void {
    appendFileSync(this.#path, `${JSON.stringify(entry)}\n`);
    this.#lines += 1;
  }

  #write(entries: Entry[]): void {
    const tmp = `${this.#path}.tmp`;
    writeFileSync(tmp, entries.map((e) => `${JSON.stringify(e)}\n`).join(''));
    renameSync(tmp, this.#path);
    this.#lines = entries.length;
  }
}
