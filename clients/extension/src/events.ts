import { z } from 'zod';
import type { Capture } from './api';

/**
 * The server's live updates (`GET /api/v1/events`, docs/API.md "Live updates"): server-sent
 * events read from a fetch stream (EventSource cannot send the API key's header). This file
 * parses the wire format and keeps, of what it carries, only well-formed capture events.
 */

/** One server-sent event as it came: `id`, `event` (its type) and the joined `data` lines. */
export interface SseMessage {
  id: string | null;
  event: string;
  data: string;
}

/** A block longer than this (no blank line in 1 MiB) is not an event of this server: the stream is dropped. */
export const MAX_BLOCK_CHARS = 1024 * 1024;

export class StreamTooLarge extends Error {}

/**
 * Incremental parser of `text/event-stream` (the WHATWG rules the server follows): lines end
 * with LF, CRLF or CR, a blank line ends an event, `:` starts a comment, `retry` sets the
 * reconnection delay. Feed it decoded text as it arrives; it answers the events completed.
 */
export class SseParser {
  private buffer = '';
  private pendingCr = false;
  private fields: { id: string | null; event: string; data: string[] } = { id: null, event: 'message', data: [] };

  constructor(private readonly onRetry: (ms: number) => void = () => undefined) {}

  push(text: string): SseMessage[] {
    let chunk = text;
    // A CR at the end of the last chunk may be the first half of a CRLF.
    if (this.pendingCr && chunk.startsWith('\n')) chunk = chunk.slice(1);
    this.pendingCr = chunk.endsWith('\r');
    this.buffer += chunk;
    const out: SseMessage[] = [];
    let match: RegExpExecArray | null;
    const eol = /\r\n|\r|\n/g;
    let start = 0;
    while ((match = eol.exec(this.buffer))) {
      const message = this.line(this.buffer.slice(start, match.index));
      if (message) out.push(message);
      start = match.index + match[0].length;
    }
    this.buffer = this.buffer.slice(start);
    const held = this.buffer.length + this.fields.data.reduce((n, d) => n + d.length, 0);
    if (held > MAX_BLOCK_CHARS) throw new StreamTooLarge(`An event of more than ${MAX_BLOCK_CHARS} characters`);
    return out;
  }

  private line(line: string): SseMessage | null {
    if (line === '') {
      const { id, event, data } = this.fields;
      this.fields = { id: null, event: 'message', data: [] };
      return data.length ? { id, event, data: data.join('\n') } : null;
    }
    if (line.startsWith(':')) return null;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'event') this.fields.event = value;
    else if (field === 'data') this.fields.data.push(value);
    else if (field === 'id' && !value.includes('\0')) this.fields.id = value;
    else if (field === 'retry' && /^\d{1,9}$/.test(value)) this.onRetry(Number(value));
    return null;
  }
}

type CaptureStatus = Capture['status'];
const CaptureStatus = z.enum([
  'pending',
  'processing',
  'processed',
  'failed',
  'archived',
  'dismissed',
]) satisfies z.ZodType<CaptureStatus>;

/** Ids as the server makes them (a prefix and a ULID): safe in a dashboard address as they are. */
const id = (prefix: string) => z.string().regex(new RegExp(`^${prefix}_[0-7][0-9a-hjkmnp-tv-z]{25}$`));
export const CAPTURE_ID = id('cap');

const envelope = <T extends string, D extends z.ZodType>(type: T, data: D) =>
  z.object({
    id: z.string().max(200),
    type: z.literal(type),
    occurred_at: z.string().max(100),
    /** The capture's change counter: an event not newer than what is held is stale. */
    version: z.number().int().positive(),
    data,
  });

/** The capture events of the stream (the node events are not what the extension shows). */
const CaptureEvent = z.discriminatedUnion('type', [
  envelope(
    'capture.changed',
    z.object({
      capture_id: CAPTURE_ID,
      status: CaptureStatus,
      previous_status: CaptureStatus.nullable(),
      node_ids: z.array(id('node')).max(1000),
      error: z.string().max(10_000).nullable(),
    }),
  ),
  envelope('capture.deleted', z.object({ capture_id: CAPTURE_ID })),
]);
export type CaptureEvent = z.infer<typeof CaptureEvent>;

/** The end of a stream with its credential: `revoked` and `signed_out` are final, `expired` reconnects. */
const CredentialEnded = z.object({ reason: z.string().max(100), detail: z.string().max(1000).optional() });
export type CredentialEnded = z.infer<typeof CredentialEnded>;

export type StreamEvent = { kind: 'capture'; event: CaptureEvent } | { kind: 'ended'; ended: CredentialEnded };

/**
 * What a server-sent event means to the extension, or null: another type (node events), data
 * that is not JSON, a shape that is not the contract's, an `event:` line that disagrees with
 * the data's type. Ignored events change nothing.
 */
export function readEvent(message: SseMessage): StreamEvent | null {
  let json: unknown;
  try {
    json = JSON.parse(message.data);
  } catch {
    return null;
  }
  if (message.event === 'credential.ended') {
    const ended = CredentialEnded.safeParse(json);
    return ended.success ? { kind: 'ended', ended: ended.data } : null;
  }
  if (message.event !== 'capture.changed' && message.event !== 'capture.deleted') return null;
  const event = CaptureEvent.safeParse(json);
  if (!event.success || event.data.type !== message.event) return null;
  return { kind: 'capture', event: event.data };
}
