import { graphApi, type Identity } from '@kg/contracts';
import { createMemoryBus } from '@kg/bus';
import { openDatabase, type Database } from '@kg/db';
import { createLogger } from '@kg/logger';
import { createMemoryKv } from '@kg/kv';
import { connectService, type ServiceHandle } from '@kg/trpc';
import type { paraApi } from '@kg/contracts';
import { createGraphModule, graphMigrations } from './module';

export const identity = (n: number): Identity => ({
  tenantId: `tnt_01jd8x6q1bf5r3v2m9w7k4t0${'0123456789abcdefghjkmnpqrstvwxyz'[n % 32]}z`,
  subject: `usr_${n}`,
  credential: { kind: 'jwt', id: `j${n}` },
});

/** A PARA peer faked at the client boundary: `known` ids exist for every tenant. */
export function fakePara(known: Set<string>): ServiceHandle<typeof paraApi> {
  return {
    service: 'para',
    as: () => ({
      items: {
        resolve: async ({ ids }: { ids: string[] }) => ({
          items: ids
            .filter((id) => known.has(id))
            .map((id) => ({ id, category: 'projects' as const, status: 'active' as const })),
        }),
      },
    }),
  };
}

/** The graph module on in-memory PGlite with a memory bus; for tests. */
export async function graphHarness(knownPara = new Set<string>()) {
  const database: Database = await openDatabase({ dataDir: null });
  await database.migrate(graphMigrations);
  const logger = createLogger('test', 'silent');
  const bus = createMemoryBus(logger);
  const module = await createGraphModule({ database, bus, logger, para: fakePara(knownPara), kv: createMemoryKv() });
  const client = connectService('test', 'graph', graphApi, { kind: 'local', router: module.router });
  return { database, bus, module, as: (n: number) => client.as(identity(n)) };
}
