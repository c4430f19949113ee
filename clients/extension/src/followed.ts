import type { Capture } from './api';
import type { CaptureEvent } from './events';

/**
 * The captures this browser made lately, as the popup shows them: status, nodes, failure.
 * Kept in `storage.local` (a reopened popup or a restarted browser shows them), written only
 * by the background: from the answer of the save, from `GET /captures/:id`, and from the
 * capture events of the live stream. Pure functions: the background serialises the writes.
 */
export interface Followed {
  id: string;
  title: string;
  url: string | null;
  status: Capture['status'];
  node_ids: string[];
  error: string | null;
  /** The highest `capture.changed` version applied (0: known from reads only). */
  version: number;
  /** Events applied so far: a read started before one of them is older than what is held. */
  events: number;
  saved_at: string;
  /** Until when (ms since the epoch) the background follows it without a popup open. */
  follow_until: number;
  /** The capture was deleted on the server. */
  deleted?: boolean;
}

export const MAX_FOLLOWED = 5;
/** How long after a save (or a retry) the background keeps the stream open for it. */
export const FOLLOW_MS = 15 * 60_000;
export const STORAGE_KEY = 'followed';

/** The capture reached a status no pipeline run will move on its own. */
export const settled = (status: Capture['status']) => status !== 'pending' && status !== 'processing';

/** Waiting for the pipeline (and not deleted). */
export const inFlight = (f: Followed) => !f.deleted && !settled(f.status);

/**
 * A capture just made (a save, a queued capture sent, a retry): first in the list, followed
 * for FOLLOW_MS. For a capture followed already (a retry), `eventsBefore` is the count of its
 * events when the request began: an event applied since is newer than the answer, and is kept.
 */
export function track(list: readonly Followed[], capture: Capture, now: number, eventsBefore?: number): Followed[] {
  const held = list.find((f) => f.id === capture.id);
  const stale = held && eventsBefore !== undefined && held.events !== eventsBefore;
  const state = stale
    ? { status: held.status, node_ids: held.node_ids, error: held.error }
    : { status: capture.status, node_ids: capture.node_ids, error: capture.error };
  const entry: Followed = {
    id: capture.id,
    title: capture.title,
    url: capture.url,
    ...state,
    version: held?.version ?? 0,
    events: held?.events ?? 0,
    saved_at: held?.saved_at ?? new Date(now).toISOString(),
    follow_until: now + FOLLOW_MS,
  };
  return [entry, ...list.filter((f) => f.id !== capture.id)].slice(0, MAX_FOLLOWED);
}

/**
 * Applies a live event, or answers null when it changes nothing: a capture this browser does
 * not follow (another device's, another capture), a version not newer than the one held (a
 * duplicate, or out of order).
 */
export function applyEvent(list: readonly Followed[], event: CaptureEvent): Followed[] | null {
  const held = list.find((f) => f.id === event.data.capture_id);
  if (!held || event.version <= held.version) return null;
  const next: Followed =
    event.type === 'capture.deleted'
      ? { ...held, deleted: true, version: event.version, events: held.events + 1 }
      : {
          ...held,
          status: event.data.status,
          node_ids: event.data.node_ids,
          error: event.data.error,
          version: event.version,
          events: held.events + 1,
        };
  return list.map((f) => (f === held ? next : f));
}

/**
 * Applies what `GET /captures/:id` answered (`null`: 404, deleted) for a read started when
 * `eventsBefore` events of it had been applied; an event applied since is newer than the read,
 * which then changes nothing (null).
 */
export function applyRead(
  list: readonly Followed[],
  id: string,
  capture: Capture | null,
  eventsBefore: number,
): Followed[] | null {
  const held = list.find((f) => f.id === id);
  if (!held || held.events !== eventsBefore) return null;
  const { deleted: _deleted, ...rest } = held;
  const next: Followed = capture
    ? { ...rest, title: capture.title, status: capture.status, node_ids: capture.node_ids, error: capture.error }
    : { ...held, deleted: true };
  return list.map((f) => (f === held ? next : f));
}

/** The background keeps the stream open: something recent is in flight, or a popup shows the list. */
export const wanted = (list: readonly Followed[], now: number, watched: boolean) =>
  list.some((f) => inFlight(f) && (watched || f.follow_until > now));

/** Reads the list; what is not a list of entries reads as empty. */
export function followedOf(value: unknown): Followed[] {
  return Array.isArray(value) ? (value as Followed[]).filter((f) => typeof f?.id === 'string') : [];
}
