import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { startCluster } from '../../scripts/distributed/cluster';
import { freePort } from '../../test/e2e/support/ports';
import { freePortBlock } from '../../test/distributed/support/ports';
import { pidOf, ROOT, signIn, startEmbeddedAt } from '../search/servers';

const run = promisify(execFile);

export interface Target {
  mode: 'embedded' | 'distributed';
  baseUrl: string;
  outboxDir: string;
  /** Where the server's logs are. */
  logs: string;
  /** The server's processes by name (embedded: one; distributed: each service). */
  processes(): Record<string, number>;
  stop(): Promise<void>;
}

/** The embedded mode (`npm start`'s entry) in its own process on a free port and a fresh DATA_DIR. */
export async function startEmbeddedTarget(env: Record<string, string>): Promise<Target> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'kg-bench-webhooks-'));
  const server = await startEmbeddedAt(dataDir, env);
  return {
    mode: 'embedded',
    baseUrl: server.baseUrl,
    outboxDir: server.outboxDir,
    logs: path.join(dataDir, 'server.log'),
    processes: () => ({ server: server.pid }),
    stop: server.stop,
  };
}

/**
 * The bench's own scripts/infra servers: its own folder and ports, so that it never joins the
 * Kafka consumer groups of another run on the shared servers (a test:distributed beside it
 * would lose its events to the bench's services), nor stops servers someone else uses.
 */
export const OWN_INFRA: Record<string, string> = {
  KG_INFRA_DIR: '/tmp/kg-infra-bench-webhooks',
  KG_PG_PORT: '58432',
  KG_REDIS_PORT: '58379',
  KG_KAFKA_PORT: '58092',
  KG_KAFKA_CONTROLLER_PORT: '58093',
  KG_MINIO_PORT: '58000',
  KG_MINIO_CONSOLE_PORT: '58001',
  KG_QDRANT_PORT: '58333',
  KG_QDRANT_GRPC_PORT: '58334',
};

const INFRA = ['postgres', 'redis', 'kafka', 'minio', 'qdrant'] as const;
type Component = (typeof INFRA)[number];

const infraDir = () => process.env['KG_INFRA_DIR'] ?? '/tmp/kg-infra';
const PID_FILES: Record<Component, () => string> = {
  postgres: () => path.join(infraDir(), 'pg/data/postmaster.pid'),
  redis: () => path.join(infraDir(), 'redis.pid'),
  kafka: () => path.join(infraDir(), 'kafka/kafka.pid'),
  minio: () => path.join(infraDir(), 'minio.pid'),
  qdrant: () => path.join(infraDir(), 'qdrant.pid'),
};
/** A word of each server's command line: a pid file left by a server that ended may name another process now. */
const COMMAND: Record<Component, string> = {
  postgres: 'postgres',
  redis: 'redis-server',
  kafka: 'kafka.Kafka',
  minio: 'minio',
  qdrant: 'qdrant',
};

const script = (c: Component, action: string) =>
  run('bash', [path.join(ROOT, 'scripts/infra', `${c}.sh`), action], { env: process.env });

const commandLine = (pid: number) => {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
  } catch {
    return null;
  }
};

/**
 * Starts the servers of scripts/infra that are not running (others' runs may be using the
 * running ones, which are left alone) and answers how to stop, by pid, the ones it started.
 */
export async function infraUp(log: (s: string) => void): Promise<{ started: string[]; down(): Promise<void> }> {
  const states = await Promise.all(
    INFRA.map(async (c) => ({
      c,
      up: await script(c, 'status').then(
        () => true,
        () => false,
      ),
    })),
  );
  const missing = states.filter((s) => !s.up).map((s) => s.c);
  const running = states.filter((s) => s.up).map((s) => s.c);
  if (missing.length)
    log(
      `scripts/infra: starting ${missing.join(', ')}` +
        (running.length ? ` (${running.join(', ')} already running: used as they are, left running)` : ''),
    );
  else log('scripts/infra: all five servers already running (used as they are, left running)');
  await Promise.all(missing.map((c) => script(c, 'start')));
  const pids = missing.map((c) => {
    const pid = Number(readFileSync(PID_FILES[c](), 'utf8').split('\n')[0]!.trim());
    if (!Number.isInteger(pid) || pid <= 1 || !commandLine(pid)?.includes(COMMAND[c]))
      throw new Error(`${c}: no running server with the pid in ${PID_FILES[c]()}`);
    return { c, pid };
  });
  return {
    started: pids.map((p) => `${p.c} (pid ${p.pid})`),
    async down() {
      await Promise.all(
        pids.map(async ({ c, pid }) => {
          const alive = () => commandLine(pid)?.includes(COMMAND[c]) ?? false;
          if (!alive()) return;
          // PostgreSQL's fast shutdown is SIGINT; the others stop cleanly on SIGTERM.
          process.kill(pid, c === 'postgres' ? 'SIGINT' : 'SIGTERM');
          for (let i = 0; i < 600 && alive(); i++) await new Promise((r) => setTimeout(r, 100));
          if (alive()) process.kill(pid, 'SIGKILL');
          log(`scripts/infra: stopped ${c} (pid ${pid}), which this bench started`);
        }),
      );
    },
  };
}

/**
 * The seven services as separate processes (scripts/distributed/cluster.ts) on a fresh database
 * of scripts/infra: the bench's own servers (OWN_INFRA), or with `sharedInfra` the default ones
 * (/tmp/kg-infra), starting only the servers that are not running; stop() ends the services,
 * drops the database and stops the servers it started, by pid (hold the lock: withDistributedLock).
 */
export async function startDistributedTarget(
  env: Record<string, string>,
  log: (s: string) => void,
  opts: { sharedInfra: boolean },
): Promise<Target> {
  // scripts/infra and cluster.ts read these from the environment.
  if (!opts.sharedInfra) Object.assign(process.env, OWN_INFRA);
  log(`scripts/infra: ${infraDir()}${opts.sharedInfra ? ' (shared)' : " (the bench's own, ports 58xxx)"}`);
  const infra = await infraUp(log);
  const dataDir = mkdtempSync(path.join(tmpdir(), 'kg-bench-webhooks-dist-'));
  try {
    const cluster = await startCluster({
      dataDir,
      gatewayPort: await freePort(),
      basePort: await freePortBlock(18500),
      manageInfra: false,
      freshDatabase: true,
      extraEnv: env,
    });
    const databaseUrl = cluster.specs.find((s) => s.name === 'captures')!.env['DATABASE_URL']!;
    const running = cluster.specs.filter((s) => !s.optional);
    return {
      mode: 'distributed',
      baseUrl: cluster.gatewayUrl,
      outboxDir: cluster.outboxDir,
      logs: path.join(dataDir, 'logs'),
      processes: () => Object.fromEntries(running.map((s) => [s.name, pidOf(s.entry, s.port)])),
      async stop() {
        await cluster.stopAll();
        await dropDatabase(databaseUrl).catch((err: unknown) =>
          log(`could not drop the run's database: ${String(err)}`),
        );
        await infra.down();
      },
    };
  } catch (err) {
    await infra.down();
    throw err;
  }
}

/** Drops the throwaway database of a run (startCluster's freshDatabase), connected to `kg`. */
async function dropDatabase(url: string) {
  const name = new URL(url).pathname.slice(1);
  if (!/^kg_run_[a-z0-9]+$/.test(name)) return;
  const client = new pg.Client({ connectionString: url.replace(/\/[^/]+$/, '/kg') });
  await client.connect();
  try {
    await client.query(`drop database if exists "${name}" with (force)`);
  } finally {
    await client.end();
  }
}

/** A signed-in tenant with an API key (an access token would expire during a long outage). */
export async function apiKeyTenant(target: Target, label: string): Promise<{ api: string; authorization: string }> {
  const bearer = await signIn(target, `bench-webhooks-${label}-${Date.now()}@example.com`);
  const api = `${target.baseUrl}/api/v1`;
  const res = await fetch(`${api}/auth/api-keys`, {
    method: 'POST',
    headers: { authorization: bearer, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'bench:webhooks' }),
  });
  if (res.status !== 201 && res.status !== 200) throw new Error(`api key: ${res.status} ${await res.text()}`);
  return { api, authorization: `ApiKey ${((await res.json()) as { key: string }).key}` };
}
