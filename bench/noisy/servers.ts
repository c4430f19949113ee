import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startCluster } from '../../scripts/distributed/cluster';
import { freePort } from '../../test/e2e/support/ports';
import { freePortBlock } from '../../test/distributed/support/ports';
import type { Server } from '../http/servers';
import { pidOf, startEmbeddedAt } from '../search/servers';
import { treeRssMiB } from './rss';

export interface Target extends Server {
  /** The processes whose memory the bomb phase samples: name → root pids (their children count too). */
  processes(): Record<string, number[]>;
}

/**
 * Settings that look like a limit (rate, quota, concurrency) are dropped from this process's
 * environment, which the embedded server inherits: the bench measures the defaults a user gets.
 */
export function useDefaultLimits(log: (s: string) => void) {
  for (const key of Object.keys(process.env))
    if (/LIMIT|QUOTA|_PER_(SECOND|MINUTE|HOUR|DAY)|CONCURREN/.test(key)) {
      log(`(ignoring ${key} from the environment: the bench runs the default limits)`);
      delete process.env[key];
    }
}

/** The embedded mode (what `npm start` runs) in its own process on a free port and a fresh DATA_DIR. */
export async function startEmbeddedTarget(): Promise<Target> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'kg-bench-noisy-'));
  const server = await startEmbeddedAt(dataDir);
  const processes = () => ({ server: [server.pid] });
  return {
    mode: 'embedded',
    baseUrl: server.baseUrl,
    outboxDir: server.outboxDir,
    graphDb: { dataDir },
    processes,
    rssMiB: () => treeRssMiB(processes().server),
    stop: server.stop,
  };
}

/**
 * The seven services as separate processes on scripts/infra, with their defaults but for `env`
 * (hold the lock: withDistributedLock).
 */
export async function startDistributedTarget(env: Record<string, string> = {}): Promise<Target> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'kg-bench-noisy-dist-'));
  const cluster = await startCluster({
    dataDir,
    gatewayPort: await freePort(),
    basePort: await freePortBlock(18400),
    manageInfra: true,
    freshDatabase: true,
    extraEnv: { LOG_LEVEL: 'warn', ...env },
  });
  const running = cluster.specs.filter((s) => !s.optional);
  const pids = new Map<string, number>();
  const processes = () =>
    Object.fromEntries(
      running.map((s) => {
        if (!pids.has(s.name)) pids.set(s.name, pidOf(s.entry, s.port));
        return [s.name, [pids.get(s.name)!]];
      }),
    );
  return {
    mode: 'distributed',
    baseUrl: cluster.gatewayUrl,
    outboxDir: cluster.outboxDir,
    graphDb: { url: running.find((s) => s.name === 'graph')!.env['DATABASE_URL']! },
    processes,
    rssMiB: () => treeRssMiB(Object.values(processes()).flat()),
    stop: () => cluster.stopAll(),
  };
}

const LOCK = '/tmp/kg-distributed.lock';

/** Whether this process already holds the lock (run under `flock /tmp/kg-distributed.lock …`: the descriptor is inherited). */
function lockInherited(): boolean {
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      if (readlinkSync(`/proc/self/fd/${fd}`) === LOCK) return true;
    } catch {
      // closed meanwhile
    }
  }
  return false;
}

/**
 * Runs `fn` holding `flock /tmp/kg-distributed.lock` (scripts/infra and its ports are shared by
 * every distributed run on the machine): a `flock … sleep` child holds it until `fn` ends.
 */
export async function withDistributedLock<T>(fn: () => Promise<T>, log: (s: string) => void): Promise<T> {
  if (lockInherited()) return fn();
  const holder = spawn('flock', [LOCK, '-c', 'echo locked; exec sleep 86400'], {
    detached: true,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const release = () => {
    try {
      process.kill(-holder.pid!, 'SIGTERM');
    } catch {
      // already gone
    }
  };
  process.once('exit', release);
  const waiting = setTimeout(() => log(`waiting for ${LOCK} (another distributed run holds it)…`), 2000);
  await new Promise<void>((resolve, reject) => {
    holder.stdout!.once('data', () => resolve());
    holder.once('exit', (code) => reject(new Error(`flock ${LOCK} exited with ${code}`)));
  });
  clearTimeout(waiting);
  try {
    return await fn();
  } finally {
    release();
    process.off('exit', release);
  }
}
