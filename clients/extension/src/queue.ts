import { ApiProblem, Unreachable, type Api, type Capture, type CreateCapture } from './api';
import type { KeyValueStorage } from './settings';

/** A capture waiting to be sent: made while the server could not be reached (or was busy). */
export interface Queued {
  id: string;
  body: CreateCapture;
  queued_at: string;
  attempts: number;
  last_error?: string;
}

/** A capture the server refused (a 4xx other than 408/429): kept to be seen, never resent. */
export interface Refused {
  title: string;
  url?: string;
  error: string;
  at: string;
}

export type SaveOutcome =
  | { kind: 'saved'; capture: Capture }
  | { kind: 'queued'; waiting: number; reason: string }
  | { kind: 'refused'; error: string };

/** Queued captures kept at most; one more is refused (the queue lives in storage.local). */
export const MAX_QUEUED = 100;
const MAX_REFUSED = 20;
const QUEUE = 'queue';
const REFUSED = 'refused';

/**
 * The offline queue: a capture that cannot be sent now (the server unreachable, busy or
 * failing) is kept in `storage.local`, so a browser restart loses nothing, and sent in order
 * later (`flush`). Every change goes through one chain, so a flush and a save never interleave.
 */
export class CaptureQueue {
  private chain: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly storage: KeyValueStorage,
    private readonly newId: () => string = () => crypto.randomUUID(),
    private readonly now: () => Date = () => new Date(),
  ) {}

  private serial<T>(work: () => Promise<T>): Promise<T> {
    const next = this.chain.then(work, work);
    this.chain = next.catch(() => undefined);
    return next;
  }

  async waiting(): Promise<Queued[]> {
    return ((await this.storage.get(QUEUE))[QUEUE] as Queued[] | undefined) ?? [];
  }

  async refused(): Promise<Refused[]> {
    return ((await this.storage.get(REFUSED))[REFUSED] as Refused[] | undefined) ?? [];
  }

  private async refuse(body: CreateCapture, error: string) {
    const list = [{ title: body.title, ...(body.url ? { url: body.url } : {}), error, at: this.now().toISOString() }];
    await this.storage.set({ [REFUSED]: [...list, ...(await this.refused())].slice(0, MAX_REFUSED) });
  }

  /** Sends `body` now; what cannot be sent now is queued (in order behind what waits already). */
  save(api: Api | null, body: CreateCapture): Promise<SaveOutcome> {
    return this.serial(async () => {
      const queue = await this.waiting();
      // Behind older captures: sending this one first would reorder them.
      if (api && queue.length === 0) {
        try {
          return { kind: 'saved', capture: await api.create(body) };
        } catch (err) {
          if (!isTransient(err)) {
            const error = String((err as Error).message ?? err);
            await this.refuse(body, error);
            return { kind: 'refused', error };
          }
          return this.enqueue(queue, body, reasonOf(err));
        }
      }
      return this.enqueue(queue, body, api ? 'older captures are waiting to be sent' : 'not set up yet');
    });
  }

  private async enqueue(queue: Queued[], body: CreateCapture, reason: string): Promise<SaveOutcome> {
    if (queue.length >= MAX_QUEUED) {
      const error = `${MAX_QUEUED} captures are already waiting to be sent; this one was not kept`;
      return { kind: 'refused', error };
    }
    const entry: Queued = {
      id: this.newId(),
      body,
      queued_at: this.now().toISOString(),
      attempts: 0,
      last_error: reason,
    };
    await this.storage.set({ [QUEUE]: [...queue, entry] });
    return { kind: 'queued', waiting: queue.length + 1, reason };
  }

  /**
   * Sends what waits, oldest first, until one cannot be sent now (it stays first in line).
   * Returns the captures made.
   */
  flush(api: Api): Promise<Capture[]> {
    return this.serial(async () => {
      const made: Capture[] = [];
      let queue = await this.waiting();
      while (queue.length) {
        const [head, ...rest] = queue as [Queued, ...Queued[]];
        try {
          made.push(await api.create(head.body));
        } catch (err) {
          if (isTransient(err)) {
            await this.storage.set({
              [QUEUE]: [{ ...head, attempts: head.attempts + 1, last_error: reasonOf(err) }, ...rest],
            });
            break;
          }
          await this.refuse(head.body, String((err as Error).message ?? err));
        }
        queue = rest;
        await this.storage.set({ [QUEUE]: queue });
      }
      return made;
    });
  }
}

/**
 * Kept to be sent later: the server unreachable, busy or failing, or the API key refused
 * (401/403: the capture is fine, the key is not; a new key in the options sends it).
 */
const isTransient = (err: unknown) =>
  err instanceof Unreachable ||
  (err instanceof ApiProblem && (err.transient || err.status === 401 || err.status === 403));
const reasonOf = (err: unknown) =>
  err instanceof Unreachable
    ? 'the server cannot be reached'
    : err instanceof ApiProblem && (err.status === 401 || err.status === 403)
      ? 'the API key was refused: set a new one in the options'
      : `the server answered: ${(err as Error).message}`;
