import { and, asc, eq, inArray } from 'drizzle-orm';
import { graphApi, type Identity } from '@kg/contracts';
import { createMemoryBus } from '@kg/bus';
import { newId, openDatabase, type Database } from '@kg/db';
import { createLogger } from '@kg/logger';
import { createMemoryKv } from '@kg/kv';
import { connectService, problemFromClientError, type ServiceHandle } from '@kg/trpc';
import type { paraApi } from '@kg/contracts';
import { createGraphModule, graphMigrations } from './module';
import { nodes, outbox } from './store/schema';

/** Test identity n (tenants cycle every 32), or a given identity as is. */
export const identity = (n: number | Identity): Identity => (typeof n === 'number' ? numbered(n) : n);

/** An identity of a tenant no other test uses (for property runs and persistent databases). */
export const freshIdentity = (): Identity => ({
  tenantId: newId('tenant'),
  subject: newId('user'),
  credential: { kind: 'jwt', id: 'fresh' },
});

const numbered = (n: number): Identity => ({
  tenantId: `tnt_01jd8x6q1bf5r3v2m9w7k4t0${'0123456789abcdefghjkmnpqrstvwxyz'[n % 32]}z`,
  subject: `usr_${n}`,
  credential: { kind: 'jwt', id: `j${n}` },
});

/**
 * A PARA peer faked at the client boundary (services never import each other). `known`
 * ids exist for every tenant; a map gives each tenant id its own items.
 */
export function fakePara(
  known: Set<string> | Map<string, Set<string>>,
  /** Labels of known items (items.list: active items, label and description). */
  labels: Map<string, string> = new Map(),
): ServiceHandle<typeof paraApi> {
  const itemsOf = (tenantId: string | undefined) =>
    known instanceof Map ? (known.get(tenantId ?? '') ?? new Set<string>()) : known;
  /** Items made by items.ensure, by tenant and case-folded label. */
  const ensured = new Map<string, string>();
  let made = 0;
  return {
    service: 'para',
    // The graph service calls items.resolve, and items.list for proposals.
    as: (who) =>
      ({
        items: {
          resolve: async ({ ids }: { ids: string[] }) => ({
            items: ids
              .filter((id) => itemsOf(who?.tenantId).has(id))
              .map((id) => ({ id, category: 'projects' as const, status: 'active' as const })),
          }),
          ensure: async ({ category, label }: { category: 'projects' | 'areas' | 'resources'; label: string }) => {
            const key = `${who?.tenantId}:${label.trim().toLowerCase()}`;
            const created = !ensured.has(key);
            if (created) ensured.set(key, `para_01jd8x6q1bf5r3v2m9w7k5t${String(++made).padStart(3, '0')}`);
            const id = ensured.get(key)!;
            itemsOf(who?.tenantId).add(id);
            if (created) labels.set(id, label);
            const at = new Date().toISOString();
            const item = { id, category, label: labels.get(id)!, description: '', slug: label.toLowerCase() };
            return {
              item: {
                ...item,
                status: 'active',
                created_at: at,
                updated_at: at,
                completed_at: null,
                archived_at: null,
              },
              created,
            };
          },
          list: async () => ({
            data: [...itemsOf(who?.tenantId)].map((id) => ({
              id,
              category: 'projects' as const,
              label: labels.get(id) ?? id,
              description: '',
              status: 'active' as const,
            })),
          }),
        },
      }) as unknown as ReturnType<ServiceHandle<typeof paraApi>['as']>,
  };
}

export interface HarnessOptions {
  /** PARA item ids the fake PARA service knows (see fakePara). */
  para?: Set<string> | Map<string, Set<string>>;
  /** Labels of those items (fakePara). */
  paraLabels?: Map<string, string>;
  /** Postgres URL; in-memory PGlite when absent. */
  url?: string;
  outboxPollMs?: number;
}

/** Starting PGlite and migrating can take seconds on a loaded machine (hooks default to 10 s). */
export const HARNESS_TIMEOUT = 60_000;

/** The graph module on in-memory PGlite (or Postgres at `url`) with a memory bus; for tests. */
export async function graphHarness(opts: HarnessOptions = {}) {
  const database: Database = await openDatabase(opts.url ? { url: opts.url } : { dataDir: null });
  await database.migrate(graphMigrations);
  const logger = createLogger('test', 'silent');
  const bus = createMemoryBus(logger);
  const module = await createGraphModule({
    database,
    bus,
    logger,
    para: fakePara(opts.para ?? new Set(), opts.paraLabels),
    kv: createMemoryKv(),
    ...(opts.outboxPollMs ? { outboxPollMs: opts.outboxPollMs } : {}),
  });
  const client = connectService('gateway', 'graph', graphApi, { kind: 'local', router: module.router });
  const db = database.db;
  return {
    database,
    bus,
    module,
    as: (n: number | Identity) => client.as(identity(n)),
    /** connection_count as stored, by node id. */
    async counts(tenant: number | Identity, ids: string[]): Promise<Record<string, number>> {
      const rows = await db
        .select({ id: nodes.id, c: nodes.connectionCount })
        .from(nodes)
        .where(and(eq(nodes.tenantId, identity(tenant).tenantId), inArray(nodes.id, ids)));
      return Object.fromEntries(rows.map((r) => [r.id, r.c]));
    },
    /** Outbox rows of a tenant (key = tenant id), in commit order. */
    outbox: (tenant: number | Identity) =>
      db
        .select({ topic: outbox.topic, key: outbox.key, payload: outbox.payload, publishedAt: outbox.publishedAt })
        .from(outbox)
        .where(eq(outbox.key, identity(tenant).tenantId))
        .orderBy(asc(outbox.seq)),
  };
}
export type GraphHarness = Awaited<ReturnType<typeof graphHarness>>;

/** The HTTP status a call ends with: 200, or the problem status of its TRPCClientError. */
export const statusOf = (p: Promise<unknown>) =>
  p.then(
    () => 200,
    (e: unknown) => problemFromClientError(e, 'graph')?.status,
  );

/** The problem a call was rejected with, read as the gateway reads it: TRPCClientError `.data.problem`. */
export const problemOf = (p: Promise<unknown>) =>
  p.then(
    () => null,
    (e: { name?: string; data?: { problem?: { status: number; detail?: string; errors?: unknown[] } } }) => {
      if (e.name !== 'TRPCClientError') throw e;
      return e.data?.problem ?? null;
    },
  );
