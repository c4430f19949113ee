import { SseParser, readEvent, type CaptureEvent } from './events';
import type { Settings } from './settings';

export interface StreamHandlers {
  /** Connected (again): events from here on arrive; what happened before is not replayed, so re-read. */
  onOpen(): void;
  onEvent(event: CaptureEvent): void;
  /** Bytes arrived (an event or the 15-s comment): the background uses it to stay awake while it follows. */
  onActivity?(): void;
  /** Stopped for good: the key was refused or revoked. Not called after `close()`. */
  onEnd?(reason: string): void;
}

export interface StreamOptions {
  fetch?: typeof fetch;
  /** Waits between attempts (tests shorten it). */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  /** 0..1, for the jitter of the backoff. */
  random?: () => number;
}

/** The server's own advice (`retry: 3000`) until it says otherwise. */
export const FIRST_RETRY_MS = 3000;
export const MAX_RETRY_MS = 60_000;

/**
 * The delay before attempt `failures + 1`: the server's `retry` doubled per failure in a row, at
 * most a minute, ±20% so that browsers the server dropped together do not come back together;
 * a `Retry-After` the server sent (429: too many streams; 503) is honoured when longer.
 */
export function backoff(failures: number, retryMs: number, random: number, retryAfterMs = 0): number {
  const base = Math.min(MAX_RETRY_MS, retryMs * 2 ** Math.min(failures, 10));
  return Math.max(Math.round(base * (0.8 + 0.4 * random)), retryAfterMs);
}

const sleeper = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
  });

/**
 * Follows `GET /api/v1/events` with the extension's API key (`Authorization: ApiKey …`: read
 * with fetch, since EventSource cannot send a header; the key never goes into the address).
 * Reconnects with backoff when the stream drops or cannot be opened. The server replays
 * nothing (no Last-Event-ID), so `onOpen` is the caller's cue to re-read what it shows.
 * Stops on `close()`, on 401/403, and on `credential.ended` other than `expired`.
 */
export function openEventStream(settings: Settings, handlers: StreamHandlers, options: StreamOptions = {}) {
  const fetchImpl = options.fetch ?? fetch;
  const sleep = options.sleep ?? sleeper;
  const random = options.random ?? Math.random;
  const stop = new AbortController();
  let retryMs = FIRST_RETRY_MS;
  let failures = 0;

  /** One connection: 'again' after a drop or a refusal worth retrying, 'stop' when it is over. */
  const connect = async (): Promise<{ next: 'again' | 'stop'; retryAfterMs?: number; reason?: string }> => {
    let res: Response;
    try {
      res = await fetchImpl(`${settings.server}/api/v1/events`, {
        headers: { accept: 'text/event-stream', authorization: `ApiKey ${settings.apiKey}` },
        signal: stop.signal,
        cache: 'no-store',
      });
    } catch {
      return { next: 'again' };
    }
    if (res.status === 401 || res.status === 403) {
      await res.body?.cancel().catch(() => undefined);
      return { next: 'stop', reason: 'the API key was refused: set a new one in the options' };
    }
    if (!res.ok || !res.body || !/^text\/event-stream/i.test(res.headers.get('content-type') ?? '')) {
      await res.body?.cancel().catch(() => undefined);
      const after = Number(res.headers.get('retry-after'));
      return { next: 'again', ...(after > 0 ? { retryAfterMs: Math.min(after, 3600) * 1000 } : {}) };
    }
    failures = 0;
    handlers.onOpen();
    const parser = new SseParser((ms) => (retryMs = Math.max(1000, Math.min(ms, MAX_RETRY_MS))));
    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return { next: 'again' };
        handlers.onActivity?.();
        for (const message of parser.push(value)) {
          const read = readEvent(message);
          if (read?.kind === 'capture') handlers.onEvent(read.event);
          else if (read?.kind === 'ended') {
            // An access token's end (an API key's stream ends only when the key is revoked): reconnect.
            if (read.ended.reason === 'expired') return { next: 'again' };
            return { next: 'stop', reason: read.ended.detail ?? `the stream ended (${read.ended.reason})` };
          }
        }
      }
    } catch {
      // The network dropped, the stream was aborted, or it sent what no server of ours sends.
      return { next: 'again' };
    } finally {
      await reader.cancel().catch(() => undefined);
    }
  };

  const done = (async () => {
    while (!stop.signal.aborted) {
      const outcome = await connect();
      if (stop.signal.aborted) return;
      if (outcome.next === 'stop') {
        handlers.onEnd?.(outcome.reason ?? 'the stream ended');
        return;
      }
      await sleep(backoff(failures++, retryMs, random(), outcome.retryAfterMs ?? 0), stop.signal);
    }
  })();

  return {
    close: () => stop.abort(),
    /** Settles once the stream stopped for good (after `close()` or an end). */
    done,
  };
}
export type EventStream = ReturnType<typeof openEventStream>;
