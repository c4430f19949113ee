import type { Db } from '@kg/db';
import { enabledEndpoints, subscribedEndpoints } from '../store/webhooks';

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
  if (!opts.singleWriter)
    return { of: (tenantId, type) => subscribedEndpoints(db, tenantId, type), changed: () => {}, size: 0 };
  const maxTenants = opts.maxTenants ?? 10_000;
  const held = new Map<string, Subscriber[]>();
  // Every change moves it: a lookup that saw another value when it started may have read rows
  // from before the change, and keeps nothing.
  let epoch = 0;

  async function load(tenantId: string): Promise<Subscriber[]> {
    const started = epoch;
    const rows = (await enabledEndpoints(db, tenantId)).map((e) => ({ id: e.id, eventTypes: e.eventTypes }));
    if (epoch === started) {
      held.set(tenantId, rows);
      if (held.size > maxTenants) held.delete(held.keys().next().value!);
    }
    return rows;
  }

  return {
    async of(tenantId, type) {
      let rows = held.get(tenantId);
      if (rows) {
        // Most recently used last: the first key is the one to drop.
        held.delete(tenantId);
        held.set(tenantId, rows);
      } else rows = await load(tenantId);
      return rows.filter((e) => e.eventTypes.includes(type)).map((e) => ({ id: e.id }));
    },
    changed(tenantId) {
      epoch++;
      held.delete(tenantId);
    },
    get size() {
      return held.size;
    },
  };
}
