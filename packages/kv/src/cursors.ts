import { randomBytes } from 'node:crypto';
import { invalid } from '@kg/contracts';
import type { KvStore } from './port';
import { guardKv } from './guard';

/** Default lifetime of a pagination cursor: 15 minutes after it was issued. */
export const CURSOR_TTL_SECONDS = 15 * 60;

/**
 * Opaque server-side cursors: the client holds a random id, the position lives in the
 * kv store with a TTL, bound to what it pages (tenant, resource, options). A cursor that
 * was not issued, has expired, or is presented for another binding answers 400.
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
  return {
    async issue(binding, state) {
      const id = `c_${randomBytes(16).toString('base64url')}`;
      await kv.set(key(id), JSON.stringify({ binding, state }), ttlSeconds);
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
