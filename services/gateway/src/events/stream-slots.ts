import { randomInt, randomUUID } from 'node:crypto';
import type { KvStore } from '@kg/kv';

export interface StreamSlotsOptions {
  /** Concurrent streams one credential (an API key, a sign-in session) may hold. */
  perCredential: number;
  /** Concurrent streams one tenant may hold, all its credentials together. */
  perTenant: number;
  /** How long a slot outlives its last renewal: the most a vanished holder (a killed replica) keeps it. */
  leaseSeconds?: number;
}

/** A stream's place in both caps; `release` gives it back (at most once; later calls do nothing). */
export interface StreamLease {
  release(): Promise<void>;
}

/** Which cap refused a stream, and its size. */
export interface StreamCapReached {
  scope: 'credential' | 'tenant';
  limit: number;
}

export const STREAM_LEASE_SECONDS = 45;

/**
 * Caps on concurrent event streams, counted in the kv store: in memory in the embedded mode, in
 * Redis in the distributed mode (so a cap spans every gateway replica). A cap of N is N slot
 * keys; a stream takes a free one with SET NX and a lease (`leaseSeconds`), renews it while it
 * is open (every third of the lease) and deletes it when it ends. A holder that vanishes without
 * deleting (a replica killed) loses its slots when their lease runs out: nothing leaks for
 * longer than `leaseSeconds`. A renewal or release writes only a slot that still holds this
 * stream's own token, so it never takes or frees another stream's slot.
 */
export function createStreamSlots(kv: KvStore, opts: StreamSlotsOptions) {
  const lease = opts.leaseSeconds ?? STREAM_LEASE_SECONDS;

  /** Takes one free slot of `scope` (looked for from a random place, so concurrent takers spread). */
  async function take(scope: string, size: number, token: string): Promise<string | null> {
    const start = randomInt(size);
    for (let i = 0; i < size; i++) {
      const key = `event-streams:${scope}:${(start + i) % size}`;
      if ((await kv.setIfAbsent(key, token, lease)) === token) return key;
    }
    return null;
  }

  const ifMine = async (key: string, token: string, then: () => Promise<void>) => {
    if ((await kv.get(key)) === token) await then();
  };

  return {
    /**
     * Takes a slot under the credential's cap, then one under the tenant's; `onError` hears a
     * renewal that failed (the kv store down: the slot may lapse early, never leak).
     */
    async acquire(
      tenantId: string,
      credentialKey: string,
      onError: (err: unknown) => void,
    ): Promise<StreamLease | StreamCapReached> {
      const token = randomUUID();
      const mine: string[] = [];
      const giveBack = () => Promise.all(mine.map((key) => ifMine(key, token, () => kv.del(key))));
      try {
        const credential = await take(`credential:${tenantId}:${credentialKey}`, opts.perCredential, token);
        if (!credential) return { scope: 'credential', limit: opts.perCredential };
        mine.push(credential);
        const tenant = await take(`tenant:${tenantId}`, opts.perTenant, token);
        if (!tenant) {
          await giveBack();
          return { scope: 'tenant', limit: opts.perTenant };
        }
        mine.push(tenant);
      } catch (err) {
        await giveBack().catch(() => undefined);
        throw err;
      }
      const renew = setInterval(
        () => {
          Promise.all(mine.map((key) => ifMine(key, token, () => kv.set(key, token, lease)))).catch(onError);
        },
        (lease * 1000) / 3,
      );
      renew.unref();
      let released: Promise<void> | null = null;
      return {
        release() {
          clearInterval(renew);
          released ??= giveBack().then(() => undefined);
          return released;
        },
      };
    },
  };
}

export type StreamSlots = ReturnType<typeof createStreamSlots>;

export const isCapReached = (r: StreamLease | StreamCapReached): r is StreamCapReached => 'scope' in r;
