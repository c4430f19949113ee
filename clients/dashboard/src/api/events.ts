import { authorizedFetch } from './client';
import { refresh } from './session';

export interface LiveEvent {
  id: string;
  type: string;
  data: Record<string, unknown>;
}

/** The last event of a stream whose credential ended (docs/API.md "Live updates"). */
export const CREDENTIAL_ENDED = 'credential.ended';

/**
 * Reads GET /api/v1/events (server-sent events). EventSource cannot send an Authorization
 * header, so the stream is read with fetch and parsed here; it reconnects after the
 * server's `retry` delay and the caller re-reads state on every (re)connection.
 *
 * The server ends a stream with its credential (`credential.ended`): after `expired` it
 * reconnects at once with a fresh access token (the session refreshes it); after `revoked` or
 * `signed_out` it stops, tells `onEnd` why, and asks the session whether it still stands (a
 * revoked session signs the dashboard out).
 */
export function subscribeEvents(
  onEvent: (event: LiveEvent) => void,
  onConnect: () => void,
  onEnd: (detail: string) => void = () => undefined,
): () => void {
  let stopped = false;
  let controller: AbortController | null = null;
  let retryMs = 3000;

  const run = async () => {
    while (!stopped) {
      controller = new AbortController();
      let ended: LiveEvent | null = null;
      try {
        const res = await authorizedFetch(
          new Request('/api/v1/events', { headers: { Accept: 'text/event-stream' }, signal: controller.signal }),
        );
        if (res.ok && res.body) {
          onConnect();
          ended = await readStream(res.body, onEvent, (ms) => (retryMs = ms));
        }
      } catch {
        // network error or abort: fall through to the pause
      }
      if (ended && ended.data['reason'] !== 'expired') {
        stopped = true;
        onEnd(String(ended.data['detail'] ?? 'The credential of the live updates ended'));
        void refresh();
        return;
      }
      // After `expired`, at once: the next fetch takes a fresh token.
      if (!stopped && !ended) await new Promise((r) => setTimeout(r, retryMs));
    }
  };
  void run();
  return () => {
    stopped = true;
    controller?.abort();
  };
}

/** Reads events until the stream ends; returns its `credential.ended` event, if that is how it ended. */
async function readStream(
  body: ReadableStream<Uint8Array>,
  onEvent: (event: LiveEvent) => void,
  onRetry: (ms: number) => void,
): Promise<LiveEvent | null> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return null;
    buffer += decoder.decode(value, { stream: true }).replace(/\r\n?/g, '\n');
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const event = parseBlock(block, onRetry);
      if (event?.type === CREDENTIAL_ENDED) {
        await reader.cancel().catch(() => undefined);
        return event;
      }
      if (event) onEvent(event);
    }
  }
}

/**
 * One SSE block: `event`, `data` (JSON), `id`, `retry`; comment lines are ignored. The data of
 * a bus event is its inner `data`; of `credential.ended`, the whole `{reason, detail}`.
 */
export function parseBlock(block: string, onRetry: (ms: number) => void): LiveEvent | null {
  let type = 'message';
  let id = '';
  const data: string[] = [];
  for (const line of block.split('\n')) {
    if (!line || line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'event') type = value;
    else if (field === 'data') data.push(value);
    else if (field === 'id') id = value;
    else if (field === 'retry' && /^\d+$/.test(value)) onRetry(Number(value));
  }
  if (!data.length) return null;
  try {
    const parsed = JSON.parse(data.join('\n')) as { data?: Record<string, unknown> };
    return { id, type, data: type === CREDENTIAL_ENDED ? parsed : (parsed.data ?? {}) };
  } catch {
    return null;
  }
}
