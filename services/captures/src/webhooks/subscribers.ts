import { LRUCache } from 'lru-cache';
import type { Db } from '@kg/db';
import { enabledEndpoints } from '../store/webhooks';

/** A tenant's endpoint as the fan-out needs it: its id and the event types it takes. */
interface Subscriber {
  id: string;
  eventTypes: readonly string[];
}

/**
 * The endpoints of a tenant subscribed to an event type, for the fan-out: a lookup for every
 * event of every tenant (two a note written, one a capture change), though most tenants have no
 * endpoint.
 *
 * With `singleWriter` (the host says this process makes every write of the captures tables: the
 * embedded mode) a tenant's enabled endpoints are kept in memory, for at most `maxTenants`
 * tenants (the least recently used go first; an entry holds at most WEBHOOK_MAX_ENDPOINTS ids),
 * and every write of an endpoint forgets them (`changed`, called once it has committed). A
 * lookup that started before a change keeps nothing. Otherwise, with replicas, each event reads
 * them: a write on another replica would go unseen.
 */
export interface Subscribers {
  of(tenantId: string, type: string): Promise<Array<{ id: string }>>;
  /** An endpoint of the tenant was created, changed or deleted, and that write has committed. */
  changed(tenantId: string): void;
  /** Tenants whose endpoints are held (0 without `singleWriter`). */
  readonly size: number;
}

export function createSubscribers(db: Db, opts: { singleWriter: boolean; maxTenants?: number }): Subscribers {
  const subscribedTo = (rows: Subscriber[], type: string) =>
    rows.filter((e) => e.eventTypes.includes(type)).map((e) => ({ id: e.id }));
  if (!opts.singleWriter)
    return {
      of: async (tenantId, type) => subscribedTo(await enabledEndpoints(db, tenantId), type),
      changed: () => {},
      size: 0,
    };
  const held = new LRUCache<string, Subscriber[]>({ max: opts.maxTenants ?? 10_000 });
  // Every change moves it: a lookup that saw another value when it started may have read rows
  // from before the change, and keeps nothing.
  let epoch = 0;

  async function load(tenantId: string): Promise<Subscriber[]> {
    const started = epoch;
    const rows = await enabledEndpoints(db, tenantId);
    if (epoch === started) held.set(tenantId, rows);
    return rows;
  }

  return {
    of: async (tenantId, type) => subscribedTo(held.get(tenantId) ?? (await load(tenantId)), type),
    changed(tenantId) {
      epoch++;
      held.delete(tenantId);
    },
    get size() {
      return held.size;
    },
  };
}
