import type { Response } from 'express';
import { z } from 'zod';
import { isAppError, rateLimited, type Identity } from '@kg/contracts';
import { problemFromClientError } from '@kg/trpc';
import type { KvStore } from '@kg/kv';
import type { GatewayHttpConfig } from '../config';
import type { EndReason, EventFeed, LiveEvent } from '../events/feed';
import { createStreamSlots, isCapReached, type StreamCapReached, type StreamSlots } from '../events/stream-slots';
import { credentialTerms } from '../http/authenticate';
import { setRateLimitHeaders } from '../http/rate-limit';
import type { GatewayPeers } from '../peers';
import { defineRoute, type Route } from './route';

/** How often a comment line keeps idle streams (and the proxies between) open. */
const HEARTBEAT_MS = 15_000;
/** Retry-After of a stream refused by a cap: a slot frees when one of the holder's streams ends. */
const CAP_RETRY_AFTER_SECONDS = 15;
/** Longest timer Node keeps (about 24.8 days); a later expiry is re-armed when it fires. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** One server-sent event: the event id (evt_…), its type, and the bus event without the tenant. */
export function formatEvent(event: LiveEvent): string {
  const { tenant_id: _tenant, ...rest } = event;
  return `id: ${event.id}\nevent: ${event.type}\ndata: ${JSON.stringify(rest)}\n\n`;
}

const END_DETAIL: Record<EndReason, string> = {
  revoked: 'The credential of this stream was revoked; sign in again or use another API key',
  signed_out: 'The session of this stream signed out; sign in again to reconnect',
  expired: 'The access token of this stream expired; reconnect with a fresh one (refresh it first)',
};

/** The last event of a stream whose credential ended: `credential.ended` `{reason, detail}`. */
export const formatEnd = (reason: EndReason): string =>
  `event: credential.ended\ndata: ${JSON.stringify({ reason, detail: END_DETAIL[reason] })}\n\n`;

/** True when the auth service refused the key (401), not when it could not answer. */
const refused = (err: unknown) =>
  isAppError(err) ? err.kind === 'unauthorized' : problemFromClientError(err, 'auth')?.status === 401;

/**
 * Asks the auth service every `everyMs` whether the raw API key of a stream still holds, and
 * calls `revoked` when it is refused: the bound when the `api_key.revoked` event is late (the
 * same as the gateway's cache of verified keys, API_KEY_CACHE_TTL_SECONDS). Returns the stop.
 */
function watchApiKey(peers: GatewayPeers, rawKey: string, everyMs: number, revoked: () => void): () => void {
  let asking = false;
  const timer = setInterval(() => {
    if (asking) return;
    asking = true;
    peers.auth
      .as(null)
      .apiKeys.verify({ key: rawKey })
      .then(
        () => undefined,
        (err: unknown) => {
          if (refused(err)) revoked();
        },
      )
      .finally(() => (asking = false));
  }, everyMs);
  return () => clearInterval(timer);
}

/** The raw key of an `Authorization: ApiKey <key>` header. */
const apiKeyOf = (header: string | undefined) => /^ApiKey\s+(\S+)$/i.exec(header?.trim() ?? '')?.[1] ?? null;

/** The cap key of a credential: an API key, the sign-in session of an access token, or the token itself (older tokens). */
function credentialKey(identity: Identity, sessionId: string | null): string {
  if (identity.credential.kind === 'api_key') return `key:${identity.credential.id}`;
  return sessionId ? `session:${sessionId}` : `jwt:${identity.credential.id}`;
}

/**
 * The rate-limit headers of a refused stream: RateLimit-Limit/-Remaining/-Reset (API-CONVENTIONS.md)
 * and the IETF fields (draft-ietf-httpapi-ratelimit-headers), whose quota unit for a cap on
 * streams open at once is `concurrent-requests` (no window: a slot frees when a stream ends).
 */
function capHeaders(res: Response, cap: StreamCapReached): void {
  setRateLimitHeaders(res, { allowed: false, limit: cap.limit, remaining: 0, resetSeconds: CAP_RETRY_AFTER_SECONDS });
  const name = `"event-streams-${cap.scope}"`;
  res.setHeader('RateLimit-Policy', `${name};q=${cap.limit};qu="concurrent-requests"`);
  res.setHeader('RateLimit', `${name};r=0;t=${CAP_RETRY_AFTER_SECONDS}`);
}

/**
 * GET /events (extension): the tenant's capture status changes and node changes as
 * server-sent events, while the stream is open. Authenticated like every request; the stream
 * ends with its credential (`credential.ended`, then the response ends): when its API key is
 * revoked, when its session signs out or is revoked, when its access token expires. Concurrent
 * streams are capped per credential and per tenant (429).
 */
export const eventRoutes = (feed: EventFeed, kv: KvStore, config: GatewayHttpConfig): Route[] => {
  // An API key's stream is re-verified as often as the gateway re-verifies a cached key (at least every second).
  const recheckMs = Math.max(1, config.API_KEY_CACHE_TTL_SECONDS) * 1000;
  const slots: StreamSlots = createStreamSlots(kv, {
    perCredential: config.EVENT_STREAMS_PER_CREDENTIAL,
    perTenant: config.EVENT_STREAMS_PER_TENANT,
  });
  return [
    defineRoute({
      method: 'get',
      path: '/events',
      operationId: 'streamEvents',
      summary:
        'Live updates (extension): server-sent events `capture.changed`, `capture.deleted`, `node.created`, `node.updated`, `node.deleted` of your tenant; `credential.ended` last when the credential ends',
      tag: 'Events',
      auth: 'required',
      service: 'captures',
      query: z.object({}).strict(),
      errors: [429],
      success: {
        status: 200,
        description:
          'text/event-stream: each event has `id` (evt_…), `event` (its type) and `data` (JSON: id, type, occurred_at, version, data). ' +
          'A comment line every 15 s keeps the stream open. No history is replayed: re-read state after reconnecting. ' +
          'The stream ends with its credential: a last event `credential.ended` (data `{reason, detail}`, reason `revoked`, `signed_out` or `expired`), then the end of the response; ' +
          'after `expired` reconnect with a fresh access token. ' +
          `Concurrent streams are capped per credential (EVENT_STREAMS_PER_CREDENTIAL, default 10) and per tenant (EVENT_STREAMS_PER_TENANT, default 20): over either, 429.`,
        media: ['text/event-stream'],
      },
      async handle(req, peers) {
        const identity = req.identity!;
        const tenantId = identity.tenantId;
        const terms = credentialTerms(identity);
        const lease = await slots.acquire(tenantId, credentialKey(identity, terms.sessionId), (err) =>
          req.raw.log?.warn({ err }, 'event stream slot not renewed'),
        );
        if (isCapReached(lease)) {
          const res = req.raw.res;
          if (res) capHeaders(res, lease);
          throw rateLimited(
            CAP_RETRY_AFTER_SECONDS,
            `At most ${lease.limit} concurrent event streams per ${lease.scope}; close one or retry later`,
          );
        }
        return {
          status: 200,
          headers: {
            'Content-Type': 'text/event-stream; charset=utf-8',
            'Cache-Control': 'no-cache, no-transform',
            Connection: 'keep-alive',
            'X-Accel-Buffering': 'no',
          },
          stream: (res: Response) =>
            new Promise<void>((resolve) => {
              let expiry: NodeJS.Timeout | undefined;
              let unwatch = () => {};
              let done = false;
              const finish = () => {
                if (done) return;
                done = true;
                clearInterval(beat);
                clearTimeout(expiry);
                unwatch();
                stop();
                void lease.release().catch((err: unknown) => req.raw.log?.warn({ err }, 'event stream slot not freed'));
                resolve();
              };
              /** The credential ended: the last event says why, then the response ends. */
              const endWith = (reason: EndReason) => {
                if (done) return;
                res.end(formatEnd(reason));
                finish();
              };
              const stop = feed.subscribe(tenantId, (event) => res.write(formatEvent(event)), {
                credential: {
                  apiKeyId: identity.credential.kind === 'api_key' ? identity.credential.id : null,
                  sessionId: terms.sessionId,
                },
                onEnd: endWith,
              });
              const beat = setInterval(() => res.write(': keep-alive\n\n'), HEARTBEAT_MS);
              const armExpiry = () => {
                if (terms.expiresAt === null) return;
                const left = terms.expiresAt - Date.now();
                if (left <= 0) return endWith('expired');
                expiry = setTimeout(armExpiry, Math.min(left, MAX_TIMER_MS));
              };
              res.once('close', finish);
              res.once('error', finish);
              // The client may have gone while the slot was taken: end at once, freeing it.
              if (res.destroyed || res.socket?.destroyed !== false) return finish();
              res.flushHeaders();
              res.write('retry: 3000\n: connected\n\n');
              const rawKey = identity.credential.kind === 'api_key' ? apiKeyOf(req.raw.header('authorization')) : null;
              if (rawKey) unwatch = watchApiKey(peers, rawKey, recheckMs, () => endWith('revoked'));
              armExpiry();
            }),
        };
      },
    }),
  ];
};
