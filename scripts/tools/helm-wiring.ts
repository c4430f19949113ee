/**
 * The Helm wiring test: proves the chart wires the seven services together.
 *
 * Renders deploy/helm/knowledge-graph with production-like values
 * (scripts/tools/helm-wiring-values.yaml + internal keys from `npm run keys:internal`), creates
 * the Secrets those values name as `kubectl create secret` would (deploy/README.md), and takes
 * each container's env from the rendered objects (the ConfigMap of envFrom, plain values,
 * secretKeyRefs). Then, with exactly that env:
 *   - every variable must be one a service reads (a renamed variable is caught here), every
 *     secretKeyRef must resolve, and every host must be a rendered Service at one of its
 *     ports (a wrong service URL is caught here) or a declared outside server;
 *   - hosts are rewritten to the scripts/infra servers (Postgres, Redis, Kafka, MinIO) and a
 *     local SMTP sink, each pod's PORT/METRICS_PORT to a free local port, /tmp to a
 *     directory of its own (the pod's emptyDir), HOST to loopback;
 *   - the migrations Job's containers run in order (their args), then each Deployment's
 *     container starts as a local process (the image's `node --import tsx` + its args);
 *   - a smoke pass of the e2e suite drives the gateway (E2E_BASE_URL), sign-in mail read
 *     from what the SMTP sink received.
 *
 *   bash scripts/tools/helm-wiring.sh                       # (flock /tmp/kg-distributed.lock)
 *   bash scripts/tools/helm-wiring.sh --static              # the checks only, no process
 *   bash scripts/tools/helm-wiring.sh --static --mutate rename-env   # must fail (CI proves it)
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { createWriteStream, mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { parseAllDocuments } from 'yaml';
import type { z } from 'zod';
import { SERVICE_NAMES } from '@kg/contracts';
import { env as fields } from '@kg/config';
import { startSmtpSink } from './smtp-sink';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** The chart under test (KG_WIRING_CHART: a copy, e.g. one broken on purpose). */
const CHART = process.env['KG_WIRING_CHART'] ?? path.join(ROOT, 'deploy/helm/knowledge-graph');
const RELEASE = 'kg';
const NAMESPACE = 'kg';
/** The smoke pass: sign-in, keys, nodes and links, graph views, PARA, uploads (S3), keyword search, logs. */
const E2E_SMOKE = [
  'auth',
  'api-keys',
  'nodes',
  'links',
  'graph-seed',
  'graph-neighbors',
  'para',
  'captures-upload',
  'search-keyword',
  'zz-logs',
].map((f) => `test/e2e/${f}.test.ts`);
/** Env the image itself sets (deploy/docker/Dockerfile ENV) and variables Node reads, not the services. */
const IMAGE_ENV = { NODE_ENV: 'production' };
const NODE_VARS = new Set(['NODE_ENV', 'NODE_OPTIONS', 'NODE_EXTRA_CA_CERTS', 'TZ']);

const { values: args } = parseArgs({
  options: {
    static: { type: 'boolean', default: false },
    mutate: { type: 'string' },
    'keep-infra': { type: 'boolean', default: false },
  },
});

interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: { secretKeyRef?: { name: string; key: string; optional?: boolean } };
}
interface Container {
  name: string;
  command?: string[];
  args?: string[];
  env?: EnvVar[];
  envFrom?: Array<{ configMapRef?: { name: string }; secretRef?: { name: string } }>;
  ports?: Array<{ name: string; containerPort: number }>;
}
interface Manifest {
  kind: string;
  metadata: { name: string; annotations?: Record<string, string> };
  data?: Record<string, string>;
  stringData?: Record<string, string>;
  spec?: {
    selector?: Record<string, string>;
    ports?: Array<{ name: string; port: number; targetPort: string | number }>;
    template?: {
      metadata?: { labels?: Record<string, string> };
      spec?: { containers: Container[]; initContainers?: Container[] };
    };
  };
}

const fail = (msg: string): never => {
  throw new Error(msg);
};
const log = (msg: string) => console.log(`helm-wiring: ${msg}`);

// ---------------------------------------------------------------------------------------
// Outside servers: the cluster-style names of the values file -> the scripts/infra servers.
const infraPort = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
function outsideServers(smtpPort: number): Map<string, string> {
  return new Map([
    ['postgres.data.svc.cluster.local:5432', `127.0.0.1:${infraPort('KG_PG_PORT', 55432)}`],
    ['redis-master.data.svc.cluster.local:6379', `127.0.0.1:${infraPort('KG_REDIS_PORT', 56379)}`],
    ['kafka-0.kafka-headless.data.svc.cluster.local:9092', `127.0.0.1:${infraPort('KG_KAFKA_PORT', 59092)}`],
    ['minio.storage.svc.cluster.local:9000', `127.0.0.1:${infraPort('KG_MINIO_PORT', 59000)}`],
    ['smtp-relay.mail.svc.cluster.local:25', `127.0.0.1:${smtpPort}`],
  ]);
}
/** Hosts that are the outside world's, left alone (the public URL only appears in mail links). */
const PUBLIC_HOSTS = new Set(['kg.example.com', 'dashboard.example.com']);

// ---------------------------------------------------------------------------------------
// The Secrets an operator creates before `helm install` (deploy/README.md, Install).
interface Made {
  secrets: Manifest[];
  valuesFile: string;
  dbName: string;
}
function operatorSecrets(work: string): Made {
  const keysDir = path.join(work, 'keys');
  const valuesFile = path.join(work, 'internal-keys.values.yaml');
  const yaml = execFileSync(
    process.execPath,
    ['--import', 'tsx', 'scripts/tools/internal-keys.ts', '--secrets-dir', keysDir],
    { cwd: ROOT, encoding: 'utf8' },
  );
  writeFileSync(valuesFile, yaml, { mode: 0o600 });
  const secret = (name: string, data: Record<string, string>): Manifest => ({
    kind: 'Secret',
    metadata: { name },
    stringData: data,
  });
  // The README's command for the access-token signing key.
  const authKey = JSON.stringify(generateKeyPairSync('ed25519').privateKey.export({ format: 'jwk' }));
  const dbName = `kg_wiring_${Date.now().toString(36)}`;
  const minioUser = process.env['KG_MINIO_USER'] ?? 'kg-minio';
  const minioPassword = process.env['KG_MINIO_PASSWORD'] ?? 'kg-minio-local-secret';
  const secrets = [
    secret('kg-secrets', {
      API_KEY_PEPPER: randomBytes(48).toString('base64'),
      AUTH_SIGNING_KEY: authKey,
      SMTP_URL: 'smtp://smtp-relay.mail.svc.cluster.local:25',
    }),
    secret('kg-postgres', { DATABASE_URL: `postgres://kg:kg@postgres.data.svc.cluster.local:5432/${dbName}` }),
    secret('kg-object-storage', { S3_ACCESS_KEY_ID: minioUser, S3_SECRET_ACCESS_KEY: minioPassword }),
    ...SERVICE_NAMES.map((s) =>
      secret(`kg-internal-${s}`, { INTERNAL_SIGNING_KEY: readFileSync(path.join(keysDir, `${s}.jwk.json`), 'utf8') }),
    ),
  ];
  return { secrets, valuesFile, dbName };
}

// ---------------------------------------------------------------------------------------
// Render and read the manifests.
function render(valuesFile: string): Manifest[] {
  const out = execFileSync(
    'helm',
    [
      'template',
      RELEASE,
      CHART,
      '--namespace',
      NAMESPACE,
      '--kube-version',
      '1.37.0',
      '-f',
      path.join(ROOT, 'scripts/tools/helm-wiring-values.yaml'),
      '-f',
      valuesFile,
    ],
    { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
  );
  return parseAllDocuments(mutate(out))
    .map((d) => d.toJS() as Manifest | null)
    .filter((d): d is Manifest => d !== null);
}

/** --mutate: the breakages the test must catch, applied to the rendered chart (for CI's negative check). */
function mutate(rendered: string): string {
  switch (args.mutate) {
    case undefined:
      return rendered;
    case 'rename-env': // the ConfigMap hands GRAPH_URL under another name
      return rendered.replace(/^(\s+)GRAPH_URL:/m, '$1GRAPH_SERVICE_URL:');
    case 'wrong-url': // a peer URL on a port its Service does not have
      return rendered.replace(/(GRAPH_URL: "?http:\/\/[a-z0-9-]+-graph):3002/, '$1:3003');
    case 'wrong-secret-key': // a secretKeyRef to a key the Secret lacks
      return rendered.replace(/key: API_KEY_PEPPER/, 'key: API_KEY_PEPER');
    default:
      return fail(`unknown --mutate ${args.mutate} (rename-env, wrong-url, wrong-secret-key)`);
  }
}

/** The variable names each service's config schema reads (services/<name>/src/config.ts). */
async function knownVariables(): Promise<Map<string, Set<string>>> {
  const known = new Map<string, Set<string>>();
  for (const name of SERVICE_NAMES) {
    const module = (await import(`../../services/${name}/src/config.ts`)) as Record<string, unknown>;
    const schema = module[`${name.replace(/-(\w)/g, (_, c: string) => c.toUpperCase())}ConfigSchema`] as
      z.ZodObject | undefined;
    if (!schema?.shape) fail(`services/${name}/src/config.ts exports no config schema object`);
    known.set(name, new Set(Object.keys(schema!.shape)));
  }
  known.set('migrate', new Set(Object.keys((fields.migrateConfigSchema as z.ZodObject).shape)));
  return known;
}

interface Pod {
  /** Deployment or Job container. */
  kind: 'Deployment' | 'Job';
  component: string;
  container: Container;
  /** Each variable, with where it came from (envFrom: any service may read it; env: this one). */
  env: Record<string, { value: string; shared: boolean }>;
}

function resolveEnv(docs: Manifest[], outside: Manifest[], container: Container) {
  const find = (kind: string, name: string) =>
    docs.find((d) => d.kind === kind && d.metadata.name === name) ??
    outside.find((d) => d.kind === kind && d.metadata.name === name);
  const secretValue = (name: string, key: string): string | undefined => {
    const s = find('Secret', name);
    if (!s) return fail(`${container.name}: Secret ${name} is neither rendered nor created by the operator`);
    if (s.stringData?.[key] !== undefined) return s.stringData[key];
    if (s.data?.[key] !== undefined) return Buffer.from(s.data[key], 'base64').toString('utf8');
    return undefined;
  };
  const env: Pod['env'] = {};
  for (const from of container.envFrom ?? []) {
    if (from.configMapRef) {
      const map = find('ConfigMap', from.configMapRef.name);
      if (!map) fail(`${container.name}: ConfigMap ${from.configMapRef.name} is not rendered`);
      for (const [k, v] of Object.entries(map!.data ?? {})) env[k] = { value: v, shared: true };
    }
    if (from.secretRef) fail(`${container.name}: envFrom secretRef is not expected (secrets go by key)`);
  }
  for (const v of container.env ?? []) {
    const ref = v.valueFrom?.secretKeyRef;
    if (!ref) {
      env[v.name] = { value: v.value ?? '', shared: false };
      continue;
    }
    const value = secretValue(ref.name, ref.key);
    if (value === undefined) {
      if (ref.optional) continue;
      fail(`${container.name}: ${v.name} needs key ${ref.key} of Secret ${ref.name}, which it lacks`);
    }
    env[v.name] = { value: value!, shared: false };
  }
  return env;
}

/** The pods to run: the migrations Job's service steps in order, then one process per Deployment. */
function pods(docs: Manifest[], outside: Manifest[]): Pod[] {
  const out: Pod[] = [];
  for (const doc of docs) {
    if (doc.kind !== 'Deployment' && doc.kind !== 'Job') continue;
    const spec = doc.spec?.template?.spec;
    if (!spec) continue;
    const component = doc.spec?.template?.metadata?.labels?.['app.kubernetes.io/component'] ?? doc.metadata.name;
    for (const container of [...(spec.initContainers ?? []), ...spec.containers]) {
      // The Job's last container only prints that the steps ran (`node -e …`).
      if (!container.args?.[0]?.startsWith('services/')) {
        if (doc.kind === 'Deployment') fail(`${doc.metadata.name}: container ${container.name} runs no service`);
        continue;
      }
      out.push({ kind: doc.kind, component, container, env: resolveEnv(docs, outside, container) });
    }
  }
  const jobs = out.filter((p) => p.kind === 'Job');
  if (jobs.length === 0) fail('the chart renders no migrations Job');
  return [...jobs, ...out.filter((p) => p.kind === 'Deployment')];
}

const serviceOf = (pod: Pod) => /^services\/([a-z-]+)\/src\/main\.ts$/.exec(pod.container.args?.[0] ?? '')?.[1] ?? '';

/** Every variable is one a service reads: its own schema's (or migrate's), or any service's for the shared ConfigMap. */
function checkVariables(all: Pod[], known: Map<string, Set<string>>) {
  const anyService = new Set([...known.values()].flatMap((s) => [...s]));
  const problems: string[] = [];
  for (const pod of all) {
    const service = serviceOf(pod);
    const migrate = pod.container.args?.[1] === 'migrate';
    // A migration step also gets its service's extraEnv: what the service reads is fine there.
    const own = migrate ? new Set([...known.get('migrate')!, ...(known.get(service) ?? [])]) : known.get(service);
    if (!own || !known.has(service)) {
      problems.push(`${pod.container.name}: ${pod.container.args?.[0]} is no service entry`);
      continue;
    }
    for (const [name, { shared }] of Object.entries(pod.env)) {
      if (NODE_VARS.has(name)) continue;
      if (shared ? !anyService.has(name) : !own.has(name))
        problems.push(
          `${pod.container.name}: ${name} is read by ${shared ? 'no service' : `no setting of ${service}`}`,
        );
    }
  }
  if (problems.length) fail(`variables nobody reads (renamed?):\n  ${problems.join('\n  ')}`);
}

// ---------------------------------------------------------------------------------------
// Local ports and the host rewrite.
interface Local {
  http: number;
  metrics: number;
}

/** Rewrites every host:port in a value: a rendered Service -> its component's local port; an outside server -> scripts/infra. */
function rewriteHosts(
  value: string,
  services: Map<string, { component: string; ports: Map<number, string> }>,
  locals: Map<string, Local>,
  outside: Map<string, string>,
  where: string,
): string {
  // host:port in URLs (scheme://[user@]host:port) and in comma lists (KAFKA_BROKERS).
  return value.replace(
    /(^|,|:\/\/(?:[^@/\s]*@)?)([a-z0-9](?:[a-z0-9.-]*[a-z0-9])?)(?::(\d+))?(?=[/?,#]|$)/gi,
    (whole, lead: string, host: string, port: string | undefined) => {
      if (PUBLIC_HOSTS.has(host) || /^\d+$/.test(host)) return whole;
      const cluster = host.replace(new RegExp(`\\.${NAMESPACE}(\\.svc(\\.cluster\\.local)?)?$`), '');
      const svc = services.get(cluster);
      if (svc) {
        const portName = port ? svc.ports.get(Number(port)) : undefined;
        if (!portName) return fail(`${where}: Service ${cluster} has no port ${port ?? '(none given)'} (${value})`);
        const local = locals.get(svc.component)!;
        return `${lead}127.0.0.1:${portName === 'metrics' ? local.metrics : local.http}`;
      }
      const mapped = outside.get(`${host}:${port}`);
      if (mapped) return `${lead}${mapped}`;
      if (!lead && !port) return whole; // a plain word in a comma list (CORS origins are URLs, caught above)
      return fail(
        `${where}: ${host}${port ? `:${port}` : ''} is neither a rendered Service nor a known server (${value})`,
      );
    },
  );
}

/** The env a pod's process gets: exactly the container's, hosts, ports and /tmp made local. */
function localEnv(
  pod: Pod,
  services: Map<string, { component: string; ports: Map<number, string> }>,
  locals: Map<string, Local>,
  outside: Map<string, string>,
  podTmp: string,
): Record<string, string> {
  const out: Record<string, string> = { ...IMAGE_ENV };
  const local = locals.get(pod.component);
  const port = (name: string) => pod.container.ports?.find((p) => p.name === name)?.containerPort;
  for (const [name, { value }] of Object.entries(pod.env)) {
    const where = `${pod.container.name} ${name}`;
    if (pod.kind === 'Deployment' && (name === 'PORT' || name === 'METRICS_PORT')) {
      const want = port(name === 'PORT' ? 'http' : 'metrics');
      // The Service routes to the named container port: the process must listen there.
      if (Number(value) !== want) fail(`${where}=${value}, but the container port it serves is ${want}`);
      out[name] = String(name === 'PORT' ? local!.http : local!.metrics);
    } else if (name === 'HOST') {
      out[name] = value === '0.0.0.0' ? '127.0.0.1' : fail(`${where}=${value}: pods listen on all addresses`);
    } else if (value.startsWith('/tmp/') || value === '/tmp') {
      out[name] = path.join(podTmp, value.slice(4));
    } else if (name.startsWith('INTERNAL_') || name === 'AUTH_SIGNING_KEY' || value.startsWith('{')) {
      out[name] = value; // JSON keys: no hosts inside
    } else {
      out[name] = rewriteHosts(value, services, locals, outside, where);
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------
const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const s = createNetServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });

async function waitReady(url: string, child: ChildProcess, name: string, logFile: string) {
  const deadline = Date.now() + 90_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) fail(`${name} exited with ${child.exitCode}; see ${logFile}`);
    const ok = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(1000) }).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return;
    await new Promise((r) => setTimeout(r, 300));
  }
  fail(`${name} not ready after 90 s; see ${logFile}`);
}

const children: ChildProcess[] = [];
async function stopAll() {
  await Promise.all(
    children.map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
          child.once('exit', () => {
            clearTimeout(timer);
            resolve();
          });
          child.kill('SIGTERM');
        }),
    ),
  );
}

async function main() {
  const work = mkdtempSync(path.join(tmpdir(), 'kg-wiring-'));
  const made = operatorSecrets(work);
  const docs = render(made.valuesFile);
  const all = pods(docs, made.secrets);
  checkVariables(all, await knownVariables());

  // Rendered Services: name -> selected component and its ports (port -> target port name).
  const services = new Map<string, { component: string; ports: Map<number, string> }>();
  for (const d of docs.filter((x) => x.kind === 'Service')) {
    const component = d.spec?.selector?.['app.kubernetes.io/component'];
    if (!component) continue;
    const ports = new Map((d.spec?.ports ?? []).map((p) => [p.port, String(p.targetPort)] as const));
    services.set(d.metadata.name, { component, ports });
  }
  const deployments = all.filter((p) => p.kind === 'Deployment');
  for (const svc of services.values())
    for (const target of svc.ports.values()) {
      const pod = deployments.find((p) => p.component === svc.component);
      if (!pod) fail(`a Service selects component ${svc.component}, which no Deployment runs`);
      if (!pod!.container.ports?.some((p) => p.name === target))
        fail(`Service of ${svc.component} targets port ${target}, which its container does not name`);
    }
  const locals = new Map<string, Local>();
  for (const pod of deployments) locals.set(pod.component, { http: await freePort(), metrics: await freePort() });
  const sink = await startSmtpSink(path.join(work, 'outbox'));
  const outside = outsideServers(sink.port);
  const envs = all.map((pod, i) => {
    const podTmp = path.join(work, 'pods', `${i}-${pod.container.name}`);
    mkdirSync(podTmp, { recursive: true });
    return localEnv(pod, services, locals, outside, podTmp);
  });
  log(
    `${deployments.length} Deployments, ${all.length - deployments.length} migration steps: env resolved and checked`,
  );
  if (args.static) {
    await sink.close();
    return;
  }

  const infra = !process.env['KG_WIRING_INFRA_UP'];
  if (infra) execFileSync('bash', [path.join(ROOT, 'scripts/infra/up.sh')], { stdio: ['ignore', 'ignore', 'inherit'] });
  const asAdmin = async (sql: string) => {
    const admin = new pg.Client({
      connectionString: `postgres://kg:kg@127.0.0.1:${infraPort('KG_PG_PORT', 55432)}/kg`,
    });
    await admin.connect();
    try {
      await admin.query(sql);
    } finally {
      await admin.end();
    }
  };
  await asAdmin(`create database "${made.dbName}" owner kg`);

  const logsDir = path.join(work, 'logs');
  mkdirSync(logsDir);
  const combinedLog = path.join(logsDir, 'all.log');
  const combined = createWriteStream(combinedLog, { flags: 'a' });
  // The image's ENTRYPOINT (node --import tsx) followed by the container's args.
  const run = (pod: Pod, env: Record<string, string>) => {
    const logFile = path.join(logsDir, `${pod.container.name}.log`);
    const out = createWriteStream(logFile, { flags: 'a' });
    const child = spawn(process.execPath, ['--import', 'tsx', ...(pod.container.args ?? [])], {
      cwd: ROOT,
      env: { PATH: process.env['PATH'] ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    for (const s of [child.stdout, child.stderr])
      s?.on('data', (chunk: Buffer) => {
        out.write(chunk);
        combined.write(chunk);
      });
    children.push(child);
    return { child, logFile };
  };
  try {
    for (const [i, pod] of all.entries()) {
      if (pod.kind !== 'Job') continue;
      const { child, logFile } = run(pod, envs[i]!);
      const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
      if (code !== 0) fail(`migration step ${pod.container.name} failed (exit ${code}); see ${logFile}`);
      log(`migration step ${pod.container.name} done`);
    }
    const started = all.flatMap((pod, i) => (pod.kind === 'Deployment' ? [{ pod, ...run(pod, envs[i]!) }] : []));
    await Promise.all(
      started.map(({ pod, child, logFile }) =>
        waitReady(`http://127.0.0.1:${locals.get(pod.component)!.http}`, child, pod.container.name, logFile),
      ),
    );
    const gateway = `http://127.0.0.1:${locals.get('gateway')!.http}`;
    log(`all ${started.length} services ready; gateway ${gateway}; e2e smoke: ${E2E_SMOKE.length} files`);
    const code = await new Promise<number | null>((resolve) => {
      const vitest = spawn(path.join(ROOT, 'scripts/node24.sh'), ['vitest', 'run', '--project', 'e2e', ...E2E_SMOKE], {
        cwd: ROOT,
        stdio: 'inherit',
        env: { ...process.env, E2E_BASE_URL: gateway, E2E_OUTBOX_DIR: sink.dir, E2E_LOG_PATH: combinedLog },
      });
      vitest.on('exit', resolve);
    });
    if (code !== 0)
      fail(`the e2e smoke pass through the chart's wiring failed (exit ${code}); service logs in ${logsDir}`);
    log('the chart wires the services: migrations ran, every service ready, the e2e smoke pass held');
  } finally {
    await stopAll();
    combined.end();
    await sink.close();
    // The run's database goes with it (the service logs stay in the work folder).
    await asAdmin(`drop database if exists "${made.dbName}" with (force)`).catch((err: unknown) =>
      log(`could not drop ${made.dbName}: ${(err as Error).message}`),
    );
    if (infra && !args['keep-infra'])
      execFileSync('bash', [path.join(ROOT, 'scripts/infra/down.sh')], { stdio: ['ignore', 'ignore', 'inherit'] });
  }
  // Mail went through SMTP: the sink holds the sign-in mails the e2e tests read.
  log(`${readdirSync(sink.dir).length} sign-in mails went through SMTP`);
}

main().then(
  () => process.exit(0),
  async (err: unknown) => {
    await stopAll();
    console.error(`helm-wiring: FAIL ${(err as Error).message}`);
    process.exit(1);
  },
);
