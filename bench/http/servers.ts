import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from '../../test/e2e/support/ports';
import { startCluster, ROOT } from '../../scripts/distributed/cluster';

export interface Server {
  mode: 'embedded' | 'distributed';
  baseUrl: string;
  outboxDir: string;
  /** Where the graph tables live: a PGlite directory (server stopped) or a Postgres URL. */
  graphDb: { dataDir: string } | { url: string };
  /** Resident set size of the process that serves the graph views (MiB). */
  rssMiB(): number;
  stop(): Promise<void>;
}

/** Rate limits far above what 16 clients can reach: the bench measures cost, not the limiter's 429s. */
export const BENCH_ENV = {
  GRAPH_RATE_LIMIT_PER_MINUTE: '100000000',
  GRAPH_RATE_LIMIT_PER_CREDENTIAL_PER_MINUTE: '100000000',
  LOG_LEVEL: 'warn',
};

export const rssOf = (pid: number) => {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
};

async function waitReady(baseUrl: string, exited: () => boolean) {
  for (let i = 0; ; i++) {
    if (exited()) throw new Error('the server exited before it was ready');
    const ok = await fetch(`${baseUrl}/readyz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return;
    if (i > 1200) throw new Error('server did not become ready');
    await new Promise((r) => setTimeout(r, 100));
  }
}

export interface EmbeddedOptions {
  dataDir?: string;
  /** Extra node flags, e.g. --cpu-prof --cpu-prof-dir=…. */
  nodeArgs?: string[];
  /** Run the built JavaScript (dist) instead of the TypeScript sources through tsx. */
  entry?: string;
  env?: Record<string, string>;
}

/** The embedded mode as `npm start` runs it, in its own process on a free port. */
export async function startEmbedded(opts: EmbeddedOptions = {}): Promise<Server & { dataDir: string; pid: number }> {
  const dataDir = opts.dataDir ?? mkdtempSync(path.join(tmpdir(), 'kg-bench-http-'));
  const port = await freePort();
  // As `npm start` runs it (scripts/start.sh, its memory settings too), unless told other flags or an entry.
  const asNpmStart = !opts.nodeArgs && !opts.entry;
  const child = spawn(
    asNpmStart ? 'bash' : process.execPath,
    asNpmStart
      ? ['scripts/start.sh']
      : [...(opts.nodeArgs ?? []), '--import', 'tsx', opts.entry ?? 'services/standalone/src/main.ts'],
    {
      cwd: ROOT,
      stdio: ['ignore', 'ignore', 'inherit'],
      env: {
        ...process.env,
        ...BENCH_ENV,
        PORT: String(port),
        METRICS_PORT: '0',
        HOST: '127.0.0.1',
        DATA_DIR: dataDir,
        ...opts.env,
      },
    },
  );
  let exited = false;
  const gone = new Promise<void>((resolve) => child.once('exit', () => ((exited = true), resolve())));
  const baseUrl = `http://127.0.0.1:${port}`;
  await waitReady(baseUrl, () => exited);
  return {
    mode: 'embedded',
    baseUrl,
    dataDir,
    pid: child.pid!,
    outboxDir: path.join(dataDir, 'outbox'),
    graphDb: { dataDir },
    rssMiB: () => rssOf(child.pid!),
    async stop() {
      if (!exited) child.kill('SIGTERM');
      await gone;
    },
  };
}

/** The seven services as separate processes on scripts/infra (the caller holds /tmp/kg-distributed.lock). */
export async function startDistributed(): Promise<Server> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'kg-bench-http-dist-'));
  const gatewayPort = await freePort();
  const cluster = await startCluster({
    dataDir,
    gatewayPort,
    basePort: Number(process.env['KG_SERVICES_BASE_PORT'] ?? 18300),
    manageInfra: true,
    freshDatabase: true,
    extraEnv: BENCH_ENV,
  });
  const graph = cluster.specs.find((s) => s.name === 'graph')!;
  // The graph process, found through /proc by its command line.
  const graphPid = () => pidsRunning(graph.entry)[0];
  return {
    mode: 'distributed',
    baseUrl: cluster.gatewayUrl,
    outboxDir: cluster.outboxDir,
    graphDb: { url: graph.env['DATABASE_URL']! },
    rssMiB: () => {
      const pid = graphPid();
      return pid ? rssOf(pid) : NaN;
    },
    stop: () => cluster.stopAll(),
  };
}

function pidsRunning(entry: string): number[] {
  const pids: number[] = [];
  for (const p of readdirSync('/proc')) {
    if (!/^\d+$/.test(p)) continue;
    try {
      if (readFileSync(`/proc/${p}/cmdline`, 'utf8').includes(entry)) pids.push(Number(p));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}
