/**
 * The Helm wiring test: proves the chart wires the seven services together.
 *
 * Renders deploy/helm/knowledge-graph with production-like values
 * (scripts/tools/helm-wiring-values.yaml + internal keys from `npm run keys:internal`), creates
 * the Secrets those values name as `kubectl create secret` would (deploy/README.md), and takes
 * each container's env from the rendered objects (the ConfigMap of envFrom, plain values,
 * secretKeyRefs; helm-wiring-env.ts resolves, checks and localises it). Then, with exactly that env:
 *   - every variable must be one a service reads (a renamed variable is caught here), every
 *     secretKeyRef must resolve, and every host must be a rendered Service at one of its
 *     ports (a wrong service URL is caught here) or a declared outside server;
 *   - hosts are rewritten to the scripts/infra servers (Postgres, Redis, Kafka, MinIO) and a
 *     local SMTP sink, each pod's PORT/METRICS_PORT to a free local port, /tmp to a
 *     directory of its own (the pod's emptyDir), HOST to loopback;
 *   - the migrations Job's containers run in order (their args), then each Deployment's
 *     container starts as a local process (the image's `node --import tsx` + its args);
 *   - a smoke pass of the e2e suite drives the gateway (E2E_BASE_URL), sign-in mail read
 *     from what the SMTP sink received;
 *   - the chart's Qdrant StatefulSet runs as the real Qdrant server with its rendered env
 *     (its API key; helm-wiring-qdrant.ts), and semantic search survives a search pod's
 *     restart: a node found by meaning is found again after the search process is killed
 *     and started afresh, and after Qdrant restarts on its volume; the Qdrant key never
 *     reaches a service log.
 *
 *   bash scripts/tools/helm-wiring.sh                       # (flock /tmp/kg-distributed.lock)
 *   bash scripts/tools/helm-wiring.sh --static              # the checks only, no process
 *   bash scripts/tools/helm-wiring.sh --static --mutate rename-env   # must fail (CI proves it)
 *   bash scripts/tools/helm-wiring.sh --set search.vectors=in-process   # must fail: vectors lost with the pod
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdirSync, mkdtempSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { parseAllDocuments } from 'yaml';
import {
  NAMESPACE,
  checkQdrantKey,
  checkVariables,
  fail,
  knownVariables,
  localEnv,
  pods,
  type Local,
  type Manifest,
  type Pod,
} from './helm-wiring-env';
import { infraPort, operatorSecrets, outsideServers } from './helm-wiring-operator';
import { qdrantPod, semanticSurvivesRestart, type QdrantPod } from './helm-wiring-qdrant';
import { E2E_SMOKE as SMOKE, e2eSmokeFile } from './e2e-smoke';
import { startSmtpSink } from './smtp-sink';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** The chart under test (KG_WIRING_CHART: a copy, e.g. one broken on purpose). */
const CHART = process.env['KG_WIRING_CHART'] ?? path.join(ROOT, 'deploy/helm/knowledge-graph');
const RELEASE = 'kg';
/** The smoke pass (e2e-smoke.ts), then the logs. */
const E2E_SMOKE = [...SMOKE, 'zz-logs'].map(e2eSmokeFile);

const { values: args } = parseArgs({
  options: {
    static: { type: 'boolean', default: false },
    mutate: { type: 'string' },
    /** Extra `helm template --set` values (e.g. search.vectors=in-process, which must fail the restart check). */
    set: { type: 'string', multiple: true, default: [] },
    'keep-infra': { type: 'boolean', default: false },
  },
});

const log = (msg: string) => console.log(`helm-wiring: ${msg}`);

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
      ...args.set.flatMap((s) => ['--set', s]),
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
    case 'wrong-replicas-url': // the gateway's GRAPH_REPLICAS_DNS on a port the headless Service does not have
      return rendered.replace(
        /(name: GRAPH_REPLICAS_DNS\n\s+value: "?http:\/\/[a-z0-9-]+-graph-replicas):3002/,
        '$1:3003',
      );
    case 'wrong-secret-key': // a secretKeyRef to a key the Secret lacks
      return rendered.replace(/key: API_KEY_PEPPER/, 'key: API_KEY_PEPER');
    case 'wrong-qdrant-url': // search's QDRANT_URL on a port the Qdrant Service does not have
      return rendered.replace(/(name: QDRANT_URL\n\s+value: "?http:\/\/[a-z0-9-]+-qdrant):6333/, '$1:6334');
    case 'wrong-qdrant-key': // Qdrant requires another key than the one search sends
      return rendered.replace(
        /(name: QDRANT__SERVICE__API_KEY\n\s+valueFrom:\n\s+secretKeyRef:\n\s+name: )\S+(\n\s+key: )\S+/,
        '$1kg-secrets$2API_KEY_PEPPER',
      );
    default:
      return fail(
        `unknown --mutate ${args.mutate} (rename-env, wrong-url, wrong-replicas-url, wrong-secret-key, wrong-qdrant-url, wrong-qdrant-key)`,
      );
  }
}

// ---------------------------------------------------------------------------------------
// The local processes.
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
  checkQdrantKey(all);

  // Rendered Services: name -> selected component and its ports (port -> target port name).
  const services = new Map<string, { component: string; ports: Map<number, string> }>();
  for (const d of docs.filter((x) => x.kind === 'Service')) {
    const component = d.spec?.selector?.['app.kubernetes.io/component'];
    if (!component) continue;
    const ports = new Map((d.spec?.ports ?? []).map((p) => [p.port, String(p.targetPort)] as const));
    services.set(d.metadata.name, { component, ports });
  }
  const deployments = all.filter((p) => p.kind === 'Deployment');
  const stateful = all.filter((p) => p.kind === 'StatefulSet');
  for (const svc of services.values())
    for (const target of svc.ports.values()) {
      const pod = [...deployments, ...stateful].find((p) => p.component === svc.component);
      if (!pod) fail(`a Service selects component ${svc.component}, which no Deployment or StatefulSet runs`);
      if (!pod!.container.ports?.some((p) => p.name === target))
        fail(`Service of ${svc.component} targets port ${target}, which its container does not name`);
    }
  const locals = new Map<string, Local>();
  for (const pod of [...deployments, ...stateful])
    locals.set(pod.component, { http: await freePort(), metrics: await freePort() });
  const sink = await startSmtpSink(path.join(work, 'outbox'));
  const outside = outsideServers(sink.port);
  const envOf = (pod: Pod, podDir: string) => {
    const podTmp = path.join(work, 'pods', podDir);
    mkdirSync(podTmp, { recursive: true });
    return localEnv(pod, services, locals, outside, podTmp);
  };
  const envs = all.map((pod, i) => envOf(pod, `${i}-${pod.container.name}`));
  const jobs = all.length - deployments.length - stateful.length;
  log(
    `${deployments.length} Deployments, ${stateful.length} StatefulSets (${stateful.map((p) => p.component).join(', ') || 'none'}), ${jobs} migration steps: env resolved and checked`,
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
  const qdrantAt = all.findIndex((p) => p.kind === 'StatefulSet' && p.component === 'qdrant');
  const qdrant: QdrantPod | undefined =
    qdrantAt < 0
      ? undefined
      : qdrantPod(
          ROOT,
          path.join(work, 'qdrant-volume'),
          envs[qdrantAt]!,
          locals.get('qdrant')!.http,
          await freePort(),
        );

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
    // The chart's Qdrant, before the services (search creates its collection at start-up).
    if (qdrant) {
      qdrant.start();
      log(`the chart's Qdrant runs at ${qdrant.url} (the real server, with the rendered API key)`);
    }
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

    // A search pod's restart: SIGKILL, then a new process with a fresh /tmp (a new pod's emptyDir).
    const restartSearch = async () => {
      const at = started.findIndex((s) => s.pod.component === 'search');
      const old = started[at] ?? fail('no search Deployment runs');
      await new Promise<void>((resolve) => {
        if (old.child.exitCode !== null || old.child.signalCode !== null) return resolve();
        old.child.once('exit', () => resolve());
        old.child.kill('SIGKILL');
      });
      const from = statSync(old.logFile).size; // the new process appends to the same log file
      const fresh = { pod: old.pod, ...run(old.pod, envOf(old.pod, 'search-restarted')) };
      started[at] = fresh;
      await waitReady(
        `http://127.0.0.1:${locals.get('search')!.http}`,
        fresh.child,
        'search (restarted)',
        fresh.logFile,
      );
      return () => readFileSync(fresh.logFile, 'utf8').slice(from);
    };
    await semanticSurvivesRestart({
      gateway,
      outbox: sink.dir,
      restartSearch,
      ...(qdrant ? { qdrant: { pod: qdrant, apiKey: envs[qdrantAt]!['QDRANT__SERVICE__API_KEY']! } } : {}),
    });
    log("semantic search survived the search pod's restart");
  } finally {
    await stopAll();
    qdrant?.stop();
    await new Promise<void>((resolve) => combined.end(resolve));
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
  const qdrantKey = qdrant && envs[qdrantAt]!['QDRANT__SERVICE__API_KEY'];
  if (qdrantKey && readFileSync(combinedLog, 'utf8').includes(qdrantKey))
    fail(`the Qdrant API key reached a service log (${combinedLog})`);
}

main().then(
  () => process.exit(0),
  async (err: unknown) => {
    await stopAll();
    const cause = (err as Error).cause as Error | undefined;
    console.error(`helm-wiring: FAIL ${(err as Error).message}${cause ? ` (${cause.message ?? String(cause)})` : ''}`);
    process.exit(1);
  },
);
