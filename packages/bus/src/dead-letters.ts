import { randomUUID } from 'node:crypto';
import { mkdir, readFile, readdir, rename, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';

/** A message no consumer could handle, kept for `npm run dlq`. */
export interface DeadLetter {
  /** Unique within its store (file name in embedded mode, `partition:offset` on Kafka). */
  id: string;
  /** The original topic (not `<topic>.dlq`). */
  topic: string;
  key: string;
  value: unknown;
  error: string;
  /** Consumer group whose handler gave up, when known. */
  group?: string;
  failed_at: string;
}

export type NewDeadLetter = Omit<DeadLetter, 'id' | 'failed_at'>;

/**
 * Where the in-process bus keeps dead letters. `replay` only marks letters: the running
 * bus takes the marked ones (`takeReplays`) and publishes them again to their topic.
 */
export interface DeadLetterStore {
  add(letter: NewDeadLetter): Promise<DeadLetter>;
  /** Pending letters (not marked for replay), oldest first; all topics when none given. */
  list(topic?: string): Promise<DeadLetter[]>;
  /** Deletes the topic's pending letters; returns how many. */
  drop(topic: string): Promise<number>;
  /** Marks the topic's pending letters for redelivery; returns how many. */
  replay(topic: string): Promise<number>;
  /** Removes and returns every letter marked for redelivery. */
  takeReplays(): Promise<DeadLetter[]>;
}

let lastMs = 0;
let sequence = 0;

/**
 * Sorts in the order letters were made: time first, then a counter for letters made in the
 * same millisecond (two failures of one batch often are), unique after.
 */
function sortableId(): string {
  const now = Math.max(Date.now(), lastMs);
  sequence = now === lastMs ? sequence + 1 : 0;
  lastMs = now;
  return `${now.toString(36).padStart(9, '0')}-${sequence.toString(36).padStart(4, '0')}-${randomUUID().slice(0, 8)}`;
}

const newLetter = (l: NewDeadLetter): DeadLetter => ({
  ...l,
  id: sortableId(),
  failed_at: new Date().toISOString(),
});

/** Dead letters in memory: for tests and throwaway in-memory databases. */
export function createMemoryDeadLetterStore(): DeadLetterStore {
  let pending: DeadLetter[] = [];
  let marked: DeadLetter[] = [];
  const mark = (topic: string, keep: boolean) => {
    const hit = pending.filter((l) => l.topic === topic);
    pending = pending.filter((l) => l.topic !== topic);
    if (keep) marked.push(...hit);
    return hit.length;
  };
  return {
    async add(letter) {
      const full = newLetter(letter);
      pending.push(full);
      return full;
    },
    list: async (topic) => pending.filter((l) => !topic || l.topic === topic),
    drop: async (topic) => mark(topic, false),
    replay: async (topic) => mark(topic, true),
    async takeReplays() {
      const taken = marked;
      marked = [];
      return taken;
    },
  };
}

/**
 * Dead letters as JSON files: `<dir>/<id>.json`, and `<dir>/replay/<id>.json` once marked
 * for redelivery. Files (not the PGlite database, which one process opens at a time) let
 * the dlq tool list, drop and mark letters while the embedded server runs; the server
 * picks marked letters up within seconds, or at its next start.
 */
export function createFileDeadLetterStore(dir: string): DeadLetterStore {
  const replayDir = path.join(dir, 'replay');
  const read = async (folder: string): Promise<Array<{ file: string; letter: DeadLetter }>> => {
    let names: string[];
    try {
      names = (await readdir(folder)).filter((n) => n.endsWith('.json')).sort();
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw err;
    }
    const out: Array<{ file: string; letter: DeadLetter }> = [];
    for (const name of names) {
      const file = path.join(folder, name);
      try {
        out.push({ file, letter: JSON.parse(await readFile(file, 'utf8')) as DeadLetter });
      } catch (err) {
        // Taken by another reader between readdir and readFile.
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      }
    }
    return out;
  };
  const ofTopic = async (topic: string) => (await read(dir)).filter((e) => e.letter.topic === topic);

  return {
    async add(letter) {
      const full = newLetter(letter);
      await mkdir(dir, { recursive: true });
      const file = path.join(dir, `${full.id}.json`);
      // Written whole, then renamed: a reader never sees half a letter.
      await writeFile(`${file}.tmp`, JSON.stringify(full, null, 2), { mode: 0o600 });
      await rename(`${file}.tmp`, file);
      return full;
    },
    list: async (topic) => (await read(dir)).map((e) => e.letter).filter((l) => !topic || l.topic === topic),
    async drop(topic) {
      const hit = await ofTopic(topic);
      for (const e of hit) await unlink(e.file);
      return hit.length;
    },
    async replay(topic) {
      const hit = await ofTopic(topic);
      if (hit.length) await mkdir(replayDir, { recursive: true });
      for (const e of hit) await rename(e.file, path.join(replayDir, path.basename(e.file)));
      return hit.length;
    },
    async takeReplays() {
      const taken: DeadLetter[] = [];
      for (const e of await read(replayDir)) {
        try {
          await unlink(e.file);
          taken.push(e.letter);
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
        }
      }
      return taken;
    },
  };
}
