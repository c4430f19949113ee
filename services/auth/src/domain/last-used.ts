import type { Deps } from './deps';

/**
 * Granularity of `last_used_at`: it is written at most once per key per 60 s, so verifying
 * a key (on every ApiKey request) costs no write. Two guards: this process remembers when it
 * last wrote each key (no statement at all within the interval), and the UPDATE itself only
 * matches when the stored value is older than the interval (replicas do not pile up writes).
 * The value shown may thus lag real use by up to 60 s.
 */
export const LAST_USED_GRANULARITY_MS = 60_000;

/** Past this many remembered keys, entries older than the interval are dropped. */
const MAX_REMEMBERED = 10_000;

export async function recordUse(
  deps: Deps,
  key: { id: string; lastUsedAt: Date | null },
  write: (now: Date, staleBefore: Date) => Promise<void>,
): Promise<void> {
  const now = deps.now().getTime();
  const staleBefore = now - LAST_USED_GRANULARITY_MS;
  const lastWrite = Math.max(deps.lastUsedWrites.get(key.id) ?? 0, key.lastUsedAt?.getTime() ?? 0);
  if (lastWrite > staleBefore) return;
  deps.lastUsedWrites.set(key.id, now);
  if (deps.lastUsedWrites.size > MAX_REMEMBERED)
    for (const [id, at] of deps.lastUsedWrites) if (at <= staleBefore) deps.lastUsedWrites.delete(id);
  await write(new Date(now), new Date(staleBefore));
}
