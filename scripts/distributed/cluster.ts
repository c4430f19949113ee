import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { createWriteStream, existsSync, mkdirSync, readFileSync, writeFileSync, type WriteStream } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { exportJWK, generateKeyPair } from 'jose';
import pg from 'pg';
import { SERVICE_NAMES } from '@kg/contracts';
import { generateInternalKeyPair } from '@kg/tokens';
import { serviceSpecs, type ServiceSpec } from './services';
import { withReplicas } from './replicas';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export interface ClusterOptions {
  dataDir: string;
  gatewayPort: number;
  basePort: number;
  /** Start Postgres, Redis, Kafka, MinIO and Qdrant with scripts/infra (and stop them at the end). */
  manageInfra: boolean;
  /** A fresh database per run (tests) instead of the shared `kg` database. */
  freshDatabase: boolean;
  /**
   * The search service's vector index: `qdrant` (default) is the Qdrant of scripts/infra (or
   * `qdrantUrl`), shared by every search replica; `in-process` is the index each search process
   * keeps under the data folder (one process only; a bench compares the two).
   */
  vectors?: 'in-process' | 'qdrant';
  /** Another Qdrant than scripts/infra's (QDRANT_URL of `npm run start:distributed`). */
  qdrantUrl?: string;
  /**
   * A Qdrant of this cluster's own instead of the shared one of scripts/infra: the same
   * qdrant.sh on basePort + 40 (gRPC + 41), storage under `dataDir`, started and stopped with the
   * cluster, so a test may kill it without disturbing anyone else on the shared one, and no
   * other run's points or restarts reach it (the distributed suite).
   */
  ownQdrant?: boolean;
  extraEnv?: Record<string, string>;
}

export interface Cluster {
  gatewayUrl: string;
  outboxDir: string;
  combinedLog: string;
  specs: ServiceSpec[];
  /** The Qdrant the search service uses; null with the in-process index. */
  qdrantUrl: string | null;
  start(name: string): Promise<void>;
  stop(name: string, signal?: NodeJS.Signals): Promise<void>;
  /**
   * Starts or stops a piece of infrastructure with its scripts/infra script; `kill` (Qdrant
   * only) ends the server of scripts/infra/qdrant.sh with SIGKILL, as a crash would.
   */
  infra(component: InfraComponent, action: 'start' | 'stop' | 'kill'): Promise<void>;
  stopAll(): Promise<void>;
}

export type InfraComponent = 'kafka' | 'postgres' | 'redis' | 'qdrant';

const infraEnv = () => ({
  pg: `postgres://kg:kg@127.0.0.1:${process.env['KG_PG_PORT'] ?? '55432'}`,
  redis: `redis://127.0.0.1:${process.env['KG_REDIS_PORT'] ?? '56379'}`,
  minio: {
    endpoint: `http://127.0.0.1:${process.env['KG_MINIO_PORT'] ?? '59000'}`,
    accessKeyId: process.env['KG_MINIO_USER'] ?? 'kg-minio',
    secretAccessKey: process.env['KG_MINIO_PASSWORD'] ?? 'kg-minio-local-secret',
  },
  kafka: `127.0.0.1:${process.env['KG_KAFKA_PORT'] ?? '59092'}`,
  qdrant: `http://127.0.0.1:${process.env['KG_QDRANT_PORT'] ?? '56333'}`,
});

/** scripts/infra's settings of a Qdrant of its own on `port` (and port + 1), its folder `dir`. */
const ownQdrantEnv = (dir: string, port: number) => ({
  KG_INFRA_DIR: dir,
  KG_QDRANT_PORT: String(port),
  KG_QDRANT_GRPC_PORT: String(port + 1),
});

/** `env`: scripts/infra settings that differ from the environment's (a Qdrant of the cluster's own). */
async function infra(component: InfraComponent, action: 'start' | 'stop' | 'kill', env: Record<string, string> = {}) {
  if (action === 'kill') {
    if (component !== 'qdrant') throw new Error(`kill: only qdrant, not ${component}`);
    return killQdrant(env['KG_INFRA_DIR'] ?? process.env['KG_INFRA_DIR'] ?? '/tmp/kg-infra');
  }
  execFileSync('bash', [path.join(ROOT, 'scripts/infra', `${component}.sh`), action], {
    stdio: 'inherit',
    env: { ...process.env, ...env },
  });
}

/** SIGKILL to the Qdrant scripts/infra/qdrant.sh started in `infraDir` (its pid file), then waits until it is gone. */
async function killQdrant(infraDir: string) {
  const pidFile = path.join(infraDir, 'qdrant.pid');
  const pid = Number(readFileSync(pidFile, 'utf8').trim());
  const alive = () => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('qdrant');
    } catch {
      return false;
    }
  };
  if (!Number.isInteger(pid) || pid <= 0 || !alive()) throw new Error(`no Qdrant running with the pid in ${pidFile}`);
  process.kill(pid, 'SIGKILL');
  for (let i = 0; i < 100 && alive(); i++) await sleep(100);
  if (alive()) throw new Error(`Qdrant (pid ${pid}) still running after SIGKILL`);
}

interface ClusterSecrets {
  signingKey: string;
  pepper: string;
  /** Each service's own private internal-token key (JSON JWK), by service name. */
  internalSigningKeys: Record<string, string>;
  /** INTERNAL_PUBLIC_KEYS: the public half of each, by service name. */
  internalPublicKeys: string;
}

/** One key pair per service: each signs its calls with its own private key; all hold the public keys. */
async function internalKeys(): Promise<Pick<ClusterSecrets, 'internalSigningKeys' | 'internalPublicKeys'>> {
  const pairs = await Promise.all(SERVICE_NAMES.map(async (name) => [name, await generateInternalKeyPair()] as const));
  return {
    internalSigningKeys: Object.fromEntries(pairs.map(([name, p]) => [name, JSON.stringify(p.privateJwk)])),
    internalPublicKeys: JSON.stringify(Object.fromEntries(pairs.map(([name, p]) => [name, p.publicJwk]))),
  };
}

async function keyMaterial(dir: string): Promise<ClusterSecrets> {
  const file = path.join(dir, 'cluster-secrets.json');
  if (existsSync(file)) {
    const kept = JSON.parse(readFileSync(file, 'utf8')) as Partial<ClusterSecrets> & {
      signingKey: string;
      pepper: string;
    };
    if (kept.internalSigningKeys && kept.internalPublicKeys) return kept as ClusterSecrets;
    // Written before services had their own keys: add them, keep the rest (sessions, API keys).
    const upgraded = { signingKey: kept.signingKey, pepper: kept.pepper, ...(await internalKeys()) };
    writeFileSync(file, JSON.stringify(upgraded), { mode: 0o600 });
    return upgraded;
  }
  const { privateKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519', extractable: true });
  const jwk = { ...(await exportJWK(privateKey)), kid: `k-${randomBytes(6).toString('hex')}`, alg: 'EdDSA' };
  const secrets = {
    signingKey: JSON.stringify(jwk),
    pepper: randomBytes(32).toString('base64url'),
    ...(await internalKeys()),
  };
  writeFileSync(file, JSON.stringify(secrets), { mode: 0o600 });
  return secrets;
}

async function createDatabase(adminUrl: string, name: string) {
  const client = new pg.Client({ connectionString: `${adminUrl}/kg` });
  await client.connect();
  await client.query(`create database "${name}" owner kg`);
  await client.end();
}

/** Whether nothing listens on 127.0.0.1:port (a leftover process would answer /readyz in the new one's place). */
function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
  });
}

async function waitReady(url: string, timeoutMs: number, child: ChildProcess, name: string, log: string) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${name} exited with ${child.exitCode}; see ${log}`);
    const ok = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(1000) }).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${name} not ready after ${timeoutMs} ms; see ${log}`);
}

/** Starts infrastructure (optionally) and the seven services as separate processes. */
export async function startCluster(opts: ClusterOptions): Promise<Cluster> {
  mkdirSync(path.join(opts.dataDir, 'logs'), { recursive: true });
  const outboxDir = path.join(opts.dataDir, 'outbox');
  mkdirSync(outboxDir, { recursive: true });
  if (opts.manageInfra) execFileSync('bash', [path.join(ROOT, 'scripts/infra/up.sh')], { stdio: 'inherit' });
  const urls = infraEnv();
  const dbName = opts.freshDatabase ? `kg_run_${Date.now().toString(36)}` : 'kg';
  if (opts.freshDatabase) await createDatabase(urls.pg, dbName);
  const secrets = await keyMaterial(opts.dataDir);
  // Qdrant's collections are named per embedding model and every point, query and count carries
  // its tenant: runs on one Qdrant (a fresh database is fresh tenants) never see each other's points.
  const onQdrant = (opts.vectors ?? 'qdrant') === 'qdrant';
  const ownQdrant =
    onQdrant && opts.ownQdrant && !opts.qdrantUrl
      ? ownQdrantEnv(path.join(opts.dataDir, 'infra'), opts.basePort + 40)
      : undefined;
  if (ownQdrant) await infra('qdrant', 'start', ownQdrant);
  const qdrantUrl = !onQdrant
    ? null
    : ownQdrant
      ? `http://127.0.0.1:${ownQdrant.KG_QDRANT_PORT}`
      : (opts.qdrantUrl ?? urls.qdrant);
  const specs = withReplicas(
    serviceSpecs({
      basePort: opts.basePort,
      gatewayPort: opts.gatewayPort,
      databaseUrl: `${urls.pg}/${dbName}`,
      redisUrl: urls.redis,
      kafkaBrokers: urls.kafka,
      internalSigningKeys: secrets.internalSigningKeys,
      internalPublicKeys: secrets.internalPublicKeys,
      signingKey: secrets.signingKey,
      pepper: secrets.pepper,
      outboxDir,
      // A bucket per database: a fresh run starts with no blobs.
      s3: { ...urls.minio, bucket: `kg-${dbName.replace(/_/g, '-')}` },
      vectors: qdrantUrl
        ? { kind: 'qdrant', url: qdrantUrl }
        : { kind: 'in-process', dir: path.join(opts.dataDir, 'search-vectors') },
      ...(opts.extraEnv ? { extra: opts.extraEnv } : {}),
    }),
    opts.basePort,
  );
  const combinedLog = path.join(opts.dataDir, 'logs', 'all.log');
  const combined: WriteStream = createWriteStream(combinedLog, { flags: 'a' });
  const children = new Map<string, ChildProcess>();
  const node = process.execPath;

  const run = (spec: ServiceSpec, args: string[]) => {
    const log = path.join(opts.dataDir, 'logs', `${spec.name}.log`);
    const out = createWriteStream(log, { flags: 'a' });
    const child = spawn(node, ['--import', 'tsx', spec.entry, ...args], {
      cwd: ROOT,
      env: { PATH: process.env['PATH'] ?? '', ...spec.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    for (const stream of [child.stdout, child.stderr]) {
      stream?.on('data', (chunk: Buffer) => {
        out.write(chunk);
        combined.write(chunk);
      });
    }
    child.on('exit', () => out.end());
    return { child, log };
  };

  const migrate = async (spec: ServiceSpec) => {
    const { child, log } = run(spec, ['migrate']);
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    if (code !== 0) throw new Error(`${spec.name} migrations failed (exit ${code}); see ${log}`);
  };

  const start = async (name: string) => {
    const spec = specs.find((s) => s.name === name);
    if (!spec) throw new Error(`unknown service ${name}`);
    const current = children.get(name);
    if (current && current.exitCode === null && current.signalCode === null) return;
    for (const port of [spec.port, spec.metricsPort])
      if (!(await portFree(port)))
        throw new Error(`${name}: port ${port} is taken (a process of an earlier cluster still running?)`);
    const { child, log } = run(spec, []);
    children.set(name, child);
    await waitReady(`http://127.0.0.1:${spec.port}`, 60_000, child, name, log);
  };

  const stop = async (name: string, signal: NodeJS.Signals = 'SIGTERM') => {
    const child = children.get(name);
    if (!child || child.exitCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill(signal);
    const timer = setTimeout(() => child.kill('SIGKILL'), 25_000);
    await exited;
    clearTimeout(timer);
    children.delete(name);
  };

  try {
    for (const spec of specs) if (spec.migrates) await migrate(spec);
    const started = await Promise.allSettled(
      specs.filter((s) => s.name !== 'gateway' && !s.optional).map((s) => start(s.name)),
    );
    const failed = started.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw failed.reason;
    await start('gateway');
  } catch (err) {
    // Leave nothing running: orphans would hold the ports and answer for the next cluster.
    await Promise.all([...children.keys()].map((n) => stop(n)));
    if (ownQdrant) await infra('qdrant', 'stop', ownQdrant);
    combined.end();
    throw err;
  }

  return {
    gatewayUrl: `http://127.0.0.1:${opts.gatewayPort}`,
    outboxDir,
    combinedLog,
    specs,
    qdrantUrl,
    start,
    stop,
    infra: (component, action) => infra(component, action, component === 'qdrant' ? ownQdrant : undefined),
    async stopAll() {
      await stop('gateway');
      await Promise.all([...children.keys()].map((n) => stop(n)));
      if (ownQdrant) await infra('qdrant', 'stop', ownQdrant);
      combined.end();
      if (opts.manageInfra) execFileSync('bash', [path.join(ROOT, 'scripts/infra/down.sh')], { stdio: 'inherit' });
    },
  };
}
