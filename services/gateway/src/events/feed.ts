import { TOPICS, type CaptureChangeEvent, type NodeEvent, type SessionEvent } from '@kg/contracts';
import type { EventBus } from '@kg/bus';
import type { Logger } from '@kg/logger';

/** What GET /events streams: the tenant's capture status changes and node changes, as the bus carries them. */
export type LiveEvent = CaptureChangeEvent | NodeEvent;
type Listener = (event: LiveEvent) => void;

/**
 * Why a stream ended with its credential (the `reason` of its last event, `credential.ended`):
 * `revoked` (its API key was revoked, or its session was revoked after a refresh-token reuse),
 * `signed_out` (its session signed out), `expired` (its access token expired).
 */
export type EndReason = 'revoked' | 'expired' | 'signed_out';

/** The credential a stream was opened with, as far as it can end: an API key, or a sign-in session. */
export interface StreamCredential {
  apiKeyId: string | null;
  sessionId: string | null;
}

/** How a stream learns that its credential ended (revocation, sign-out). */
export interface StreamEnd {
  credential: StreamCredential;
  onEnd(reason: EndReason): void;
}

/** A credential that ended for every stream opened with it. */
export type EndedCredential = { kind: 'api_key'; id: string } | { kind: 'session'; id: string };

/**
 * The gateway's fan-out of live events to its open event streams, per tenant. It holds no
 * history: a stream sees what happens while it is open (clients re-read state on reconnect).
 */
export interface EventFeed {
  publish(event: LiveEvent): void;
  /**
   * Listens to one tenant's events; returns the function that stops listening. With `end`, the
   * listener is told when its credential is revoked (`endCredential`), then dropped.
   */
  subscribe(tenantId: string, listener: Listener, end?: StreamEnd): () => void;
  /** Ends every stream of the tenant opened with this credential (each hears `reason` once); returns how many. */
  endCredential(tenantId: string, credential: EndedCredential, reason: EndReason): number;
  /** Open streams (for metrics and tests). */
  size(): number;
}

interface Subscriber {
  listener: Listener;
  end: StreamEnd | undefined;
}

const matches = (end: StreamEnd | undefined, c: EndedCredential) =>
  !!end && (c.kind === 'api_key' ? end.credential.apiKeyId === c.id : end.credential.sessionId === c.id);

export function createEventFeed(): EventFeed {
  const byTenant = new Map<string, Set<Subscriber>>();
  const remove = (tenantId: string, set: Set<Subscriber>, sub: Subscriber) => {
    set.delete(sub);
    if (set.size === 0 && byTenant.get(tenantId) === set) byTenant.delete(tenantId);
  };
  return {
    publish(event) {
      for (const sub of byTenant.get(event.tenant_id) ?? []) sub.listener(event);
    },
    subscribe(tenantId, listener, end) {
      const set = byTenant.get(tenantId) ?? new Set<Subscriber>();
      const sub: Subscriber = { listener, end };
      set.add(sub);
      byTenant.set(tenantId, set);
      return () => remove(tenantId, set, sub);
    },
    endCredential(tenantId, credential, reason) {
      const set = byTenant.get(tenantId);
      if (!set) return 0;
      const ended = [...set].filter((sub) => matches(sub.end, credential));
      // Dropped before they are told: nothing published from here on reaches them.
      for (const sub of ended) remove(tenantId, set, sub);
      for (const sub of ended) {
        try {
          sub.end!.onEnd(reason);
        } catch {
          // a stream whose connection is gone already: nothing left to tell it
        }
      }
      return ended.length;
    },
    size: () => [...byTenant.values()].reduce((n, s) => n + s.size, 0),
  };
}

/** A session revoked after a refresh-token reuse is `revoked` to the stream; a sign-out is `signed_out`. */
const sessionEndReason = (event: SessionEvent): EndReason =>
  event.data.reason === 'signed_out' ? 'signed_out' : 'revoked';

/**
 * Feeds `feed` from the bus: capture changes and node changes, and the credentials that end
 * streams (`api_key.revoked`, `session.revoked`, both from the auth service's outbox). `group` is
 * the consumer group; in the distributed mode each gateway replica uses its own (every replica
 * must see every event for the streams it holds) starting at the newest message.
 */
export async function feedFromBus(
  bus: EventBus,
  feed: EventFeed,
  group: string,
  logger: Logger,
  /** Told when the group's subscriptions are live (every event published from then on reaches them), and when not. */
  onLive?: (live: boolean) => void,
): Promise<void> {
  const deliver = async (event: LiveEvent) => {
    try {
      feed.publish(event);
    } catch (err) {
      logger.warn({ err }, 'live event not delivered');
    }
  };
  const live = { group, fromBeginning: false, maxAttempts: 1 } as const;
  await bus.subscribe({ topic: TOPICS.captureChanges, ...live, ...(onLive ? { onLive } : {}), handler: deliver });
  await bus.subscribe({ topic: TOPICS.graphNodes, ...live, handler: deliver });
  await bus.subscribe({
    topic: TOPICS.apiKeys,
    ...live,
    handler: async (event) => {
      const ended = feed.endCredential(event.tenant_id, { kind: 'api_key', id: event.data.api_key_id }, 'revoked');
      if (ended)
        logger.info({ apiKeyId: event.data.api_key_id, streams: ended }, 'event streams of a revoked API key ended');
    },
  });
  await bus.subscribe({
    topic: TOPICS.sessions,
    ...live,
    handler: async (event) => {
      const reason = sessionEndReason(event);
      const ended = feed.endCredential(event.tenant_id, { kind: 'session', id: event.data.session_id }, reason);
      if (ended) logger.info({ reason, streams: ended }, 'event streams of a revoked session ended');
    },
  });
}
