import { ApiError, type Import } from '@kg/sdk';
import { isFinal } from './format.ts';

/** How often a running import is looked at. */
export const FOLLOW_INTERVAL_MS = 1000;
/** A 429 that names no Retry-After waits this long. */
const DEFAULT_RETRY_SECONDS = 5;

export interface FollowView {
  /** The import as last read (called on every look). */
  update(imp: Import): void;
}

export interface FollowOptions {
  intervalMs?: number;
  /** Aborted (Ctrl-C): following stops, the import goes on in the server. */
  signal?: AbortSignal;
}

/** Following stopped before the import finished (Ctrl-C); the import itself goes on. */
export class StoppedFollowing extends Error {
  override name = 'StoppedFollowing';
  readonly last: Import | undefined;
  constructor(last: Import | undefined) {
    super('stopped following');
    this.last = last;
  }
}

const wait = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });

/**
 * Looks at an import every `intervalMs` until it is completed, failed or cancelled, showing each
 * look; answers the final import. A 429 is waited out (Retry-After); any other error ends the
 * follow (the caller says how to follow again). Aborting stops between looks.
 */
export async function followImport(
  get: (id: string) => Promise<Import>,
  id: string,
  view: FollowView,
  opts: FollowOptions = {},
): Promise<Import> {
  const interval = opts.intervalMs ?? FOLLOW_INTERVAL_MS;
  let last: Import | undefined;
  for (;;) {
    if (opts.signal?.aborted) throw new StoppedFollowing(last);
    let pause = interval;
    try {
      last = await get(id);
      view.update(last);
      if (isFinal(last)) return last;
    } catch (e) {
      if (!(e instanceof ApiError && e.status === 429)) {
        if (opts.signal?.aborted) throw new StoppedFollowing(last);
        throw e;
      }
      pause = (e.retryAfterSeconds ?? DEFAULT_RETRY_SECONDS) * 1000;
    }
    await wait(pause, opts.signal);
  }
}
