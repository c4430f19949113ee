import { AuthRequiredError, apiErrorFrom } from './errors.ts';
import type { KgClient } from './client.ts';

/** One server-sent event of `GET /events` (docs/API.md "Captures", live updates). */
export interface ServerEvent {
  id: string | undefined;
  /**
   * `capture.changed`, `capture.deleted`, `node.created`, `node.updated`, `node.deleted`; and
   * `credential.ended`, the last event of a stream whose credential ended (`data.reason`).
   */
  event: string;
  /** The parsed `data` line: `{id, type, occurred_at, version, data}`; `{reason, detail}` for `credential.ended`. */
  data: {
    id?: string;
    type?: string;
    occurred_at?: string;
    version?: number;
    data?: Record<string, unknown>;
    reason?: string;
    detail?: string;
  };
}

/** Parses a `text/event-stream` body into events (comments and retry lines are skipped). */
export async function* parseEventStream(body: ReadableStream<Uint8Array>): AsyncGenerator<ServerEvent> {
  let buffer = '';
  let event = 'message';
  let id: string | undefined;
  let data: string[] = [];
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += value;
      let nl: number;
      while ((nl = buffer.search(/\r?\n/)) >= 0) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + (buffer[nl] === '\r' ? 2 : 1));
        if (line === '') {
          if (data.length) {
            let parsed: ServerEvent['data'] = {};
            try {
              parsed = JSON.parse(data.join('\n')) as ServerEvent['data'];
            } catch {
              // not JSON: an empty payload
            }
            yield { id, event, data: parsed };
          }
          event = 'message';
          id = undefined;
          data = [];
          continue;
        }
        if (line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        const val = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === 'event') event = val;
        else if (field === 'data') data.push(val);
        else if (field === 'id') id = val;
      }
    }
  } finally {
    reader.releaseLock();
    await body.cancel().catch(() => undefined);
  }
}

/**
 * Opens the tenant's live event stream. The answer is awaited before this returns, so events
 * that happen after `await openEvents(kg)` are never missed; iterate the result to read them.
 *
 * The server ends a stream with its credential (`credential.ended`, yielded like any event):
 * after `expired` (the access token's lifetime) the stream is opened again with a fresh token
 * (the session refreshes it) and reading goes on; events in between are not replayed, so a
 * caller re-reads what it shows when it sees `credential.ended`. After `revoked` or
 * `signed_out` the iteration throws AuthRequiredError: that credential is over.
 */
export async function openEvents(kg: KgClient, signal?: AbortSignal): Promise<AsyncGenerator<ServerEvent>> {
  return followStreams(kg, await connect(kg, signal), signal);
}

async function connect(kg: KgClient, signal: AbortSignal | undefined): Promise<ReadableStream<Uint8Array>> {
  const res = await kg.session.fetch(
    () =>
      new Request(`${kg.baseUrl}/events`, {
        headers: { accept: 'text/event-stream' },
        ...(signal ? { signal } : {}),
      }),
  );
  if (!res.ok || !res.body) throw await apiErrorFrom(res);
  return res.body;
}

async function* followStreams(
  kg: KgClient,
  first: ReadableStream<Uint8Array>,
  signal: AbortSignal | undefined,
): AsyncGenerator<ServerEvent> {
  let body = first;
  for (;;) {
    let ended: ServerEvent['data'] | undefined;
    for await (const e of parseEventStream(body)) {
      yield e;
      if (e.event === 'credential.ended') {
        ended = e.data;
        break;
      }
    }
    // Closed for another reason (the server stopped, the network): the caller decides.
    if (!ended) return;
    if (ended.reason !== 'expired')
      throw new AuthRequiredError(
        `The event stream ended: ${ended.detail ?? `its credential ended (${ended.reason ?? 'unknown reason'})`}.`,
      );
    body = await connect(kg, signal);
  }
}
