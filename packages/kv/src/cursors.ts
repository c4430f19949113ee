import { createHmac, randomBytes } from 'node:crypto';
import { invalid } from '@kg/contracts';
import type { KvStore } from './port';
import { guardKv } from './guard';

/** Default lifetime of a pagination cursor: 15 minutes after it was issued. */
export const CURSOR_TTL_SECONDS = 15 * 60;

/**
 * Opaque server-side cursors: the client holds an id, the position lives in the kv store
 * with a TTL, bound to what it pages (tenant, resource, options). A cursor that was not
 * issued, has expired, or is presented for another binding answers 400.
 *
 * The id is an HMAC of the binding and the position under a key this process drew at
 * start: unguessable, and the same page asked again gets the same cursor (its entry is
 * written again with a fresh TTL), so a client paging the same view over and over holds
 * one entry per position, not one per request (16 clients at 4,000 pages/s would otherwise
 * leave millions of entries alive for 15 minutes).
 */
export interface CursorStore<S> {
  issue(binding: string, state: S): Promise<string>;
  resume(cursor: string, binding: string): Promise<S>;
}

const CURSOR_PATTERN = /^c_[A-Za-z0-9_-]{22}$/;

export function createCursorStore<S>(
  store: KvStore,
  namespace: string,
  ttlSeconds = CURSOR_TTL_SECONDS,
): CursorStore<S> {
  const kv = guardKv(store); // a kv outage answers 503, not 500
  const key = (id: string) => `cursor:${namespace}:${id}`;
  const secret = randomBytes(32);
  return {
    async issue(binding, state) {
      const value = JSON.stringify({ binding, state });
      const id = `c_${createHmac('sha256', secret).update(value).digest().subarray(0, 16).toString('base64url')}`;
      await kv.set(key(id), value, ttlSeconds);
      return id;
    },
    async resume(cursor, binding) {
      const bad = invalid('Invalid or expired cursor', [
        { path: 'cursor', message: 'not a cursor issued for this request, or expired' },
      ]);
      if (!CURSOR_PATTERN.test(cursor)) throw bad;
      const raw = await kv.get(key(cursor));
      if (!raw) throw bad;
      const saved = JSON.parse(raw) as { binding: string; state: S };
      if (saved.binding !== binding) throw bad;
      return saved.state;
    },
  };
}
