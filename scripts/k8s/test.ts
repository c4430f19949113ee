/**
 * The k8s test (`npm run test:k8s`, through scripts/k8s/test.sh, which brings the cluster up,
 * imports the images and starts deploy/test-infra; this runs inside the cluster's network
 * namespace, so Service addresses answer and `kubectl`/`helm` reach the API server):
 *
 *   1. install: the README's "Install on Kubernetes" block, run as it stands (its `docker`
 *      line aside), with deploy/test-infra/ci-values.yaml as my-values.yaml: Secrets, internal
 *      keys, `helm upgrade --install --wait` (timed: install to every pod Ready), `helm test`;
 *   2. the e2e smoke pass through the gateway's Service (sign-in mail through an SMTP sink
 *      the pods reach on the node's address), and the service logs checked for secrets;
 *   3. the k6 graph smoke (`npm run load:graph`) through the gateway's Service, thresholds enforced;
 *   4. `helm upgrade` to another image tag while a client keeps calling: no request fails,
 *      the migrations Job runs once, every pod runs the new image;
 *   5. faults under load: a graph pod and a search pod deleted (nothing acknowledged lost,
 *      semantic search finds what it found before), Kafka gone for 60 s (writes go on; what
 *      was written meanwhile becomes searchable once it is back);
 *   6. `helm uninstall`: nothing of the release is left in its namespace.
 *
 * NetworkPolicy: the bridge CNI plugin does not enforce NetworkPolicies, so this cluster
 * cannot show that the chart's policies block anything (they are applied, and checked
 * statically by scripts/tools/check-helm.sh: every pod selected, ports and peers as intended).
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { E2E_SMOKE as SMOKE, e2eSmokeFile } from '../tools/e2e-smoke';
import { startSmtpSink } from '../tools/smtp-sink';
import { Writer, call, findNode, missingNodes, signIn } from './client';
import { installBlock } from './install-block';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const NS = 'kg';
const INFRA_NS = 'kg-infra';
const RELEASE = 'kg';
const NODE_IP = process.env['KG_K8S_NODE_IP'] ?? '10.99.0.1';
const FULL = `${RELEASE}-knowledge-graph`;
/**
 * The e2e smoke pass: the wiring test's, through a real cluster, but for api-keys.test.ts,
 * whose "the very next request after revocation" holds per gateway: with two gateway pods
 * behind the Service, the other pod drops the key when the auth service's api_key.revoked
 * event reaches it, within API_KEY_CACHE_TTL_SECONDS (docs/API.md; proven across replicas by
 * test/distributed/api-key-revocation.test.ts).
 */
const E2E_SMOKE = SMOKE.filter((f) => f !== 'api-keys');

const figures: Record<string, string> = {};
const t0 = Date.now();
const log = (msg: string) => console.log(`k8s-test [+${Math.round((Date.now() - t0) / 1000)}s] ${msg}`);
function fail(msg: string): never {
  throw new Error(msg);
}

function sh(
  cmd: string,
  args: string[],
  opts: { cwd?: string; env?: NodeJS.ProcessEnv; quiet?: boolean } = {},
): string {
  return execFileSync(cmd, args, {
    cwd: opts.cwd ?? ROOT,
    env: opts.env ?? process.env,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', opts.quiet ? 'pipe' : 'inherit'],
    maxBuffer: 256 * 1024 * 1024,
  });
}
const kubectl = (...args: string[]) => sh('kubectl', args);
const kjson = <T>(...args: string[]) => JSON.parse(kubectl(...args, '-o', 'json')) as T;

/** Runs a command with inherited output; resolves with its exit code. */
function run(cmd: string, args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd: opts.cwd ?? ROOT, env: opts.env ?? process.env, stdio: 'inherit' });
    child.on('exit', (code) => resolve(code ?? 1));
  });
}

interface Pod {
  metadata: { name: string; labels?: Record<string, string>; creationTimestamp: string };
  spec: { containers: Array<{ name: string; image: string }> };
  status: { phase: string; containerStatuses?: Array<{ ready: boolean; restartCount: number }> };
}
const podsOf = (component: string) =>
  kjson<{ items: Pod[] }>('-n', NS, 'get', 'pods', '-l', `app.kubernetes.io/component=${component}`).items;

function serviceUrl(component: string, port: number): string {
  const ip = kubectl('-n', NS, 'get', 'svc', `${FULL}-${component}`, '-o', 'jsonpath={.spec.clusterIP}').trim();
  return `http://${ip}:${port}`;
}

async function waitRolledOut(what: string) {
  sh('kubectl', ['-n', NS, 'rollout', 'status', what, '--timeout=600s'], { quiet: true });
}

/** A work folder that looks like the repository (symlinks) but keeps what the install block writes. */
function installFolder(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'kg-k8s-install-'));
  const writes = new Set(['keys', 'auth-signing-key.jwk.json', 'internal-keys.values.yaml', 'my-values.yaml']);
  for (const entry of readdirSync(ROOT))
    if (!writes.has(entry)) symlinkSync(path.join(ROOT, entry), path.join(dir, entry));
  return dir;
}

async function main() {
  const work = mkdtempSync(path.join(tmpdir(), 'kg-k8s-test-'));
  const sink = await startSmtpSink(path.join(work, 'mail'), NODE_IP);
  log(`SMTP sink on ${NODE_IP}:${sink.port} (the pods reach the node's address)`);
  const pg = kubectl('-n', INFRA_NS, 'get', 'secret', 'postgres', '-o', 'jsonpath={.data.DATABASE_URL}');
  const databaseUrl = Buffer.from(pg, 'base64').toString('utf8');

  // 1. The README's install block, as a person with their own cluster runs it.
  const dir = installFolder();
  const tag = process.env['KG_K8S_TAG'] ?? 'ci-1';
  const nextTag = process.env['KG_K8S_NEXT_TAG'] ?? 'ci-2';
  writeFileSync(
    path.join(dir, 'my-values.yaml'),
    `${readFileSync(path.join(ROOT, 'deploy/test-infra/ci-values.yaml'), 'utf8')}\n# the test's image tag\nimage:\n  repository: localhost/knowledge-graph\n  tag: ${tag}\n  pullPolicy: Never\n`,
  );
  const timings = path.join(work, 'helm-timings');
  const block = installBlock(readFileSync(path.join(ROOT, 'README.md'), 'utf8'));
  const script = [
    'set -euo pipefail',
    // Times the helm install (install to every pod Ready, as --wait waits).
    `helm() { if [[ "$1" == upgrade ]]; then local s=$(date +%s%N); command helm "$@"; echo "$(( ($(date +%s%N) - s) / 1000000 ))" >> ${timings}; else command helm "$@"; fi; }`,
    block,
  ].join('\n');
  log(`install: the README block (${block.split('\n').length} lines) in ${dir}`);
  const code = await run('bash', ['-c', script], {
    cwd: dir,
    env: { ...process.env, SMTP_URL: `smtp://${NODE_IP}:${sink.port}`, DATABASE_URL: databaseUrl },
  });
  if (code !== 0) fail(`the README's install block failed (exit ${code})`);
  const installMs = Number(readFileSync(timings, 'utf8').trim().split('\n')[0]);
  figures['helm install to every pod Ready'] = `${(installMs / 1000).toFixed(1)} s`;
  log(`installed; helm install --wait took ${(installMs / 1000).toFixed(1)} s; helm test passed`);
  const notRoot = readdirSync(dir).filter((f) => f === 'keys' || f === 'auth-signing-key.jwk.json');
  if (notRoot.length) fail(`the install block left secrets behind: ${notRoot.join(', ')}`);

  const gateway = serviceUrl('gateway', 8080);
  log(`gateway Service ${gateway}`);

  // 2. The e2e smoke pass, then the logs of every pod checked for the secrets it saw.
  const e2e = await run(
    path.join(ROOT, 'scripts/node24.sh'),
    ['vitest', 'run', '--project', 'e2e', ...E2E_SMOKE.map(e2eSmokeFile)],
    { env: { ...process.env, E2E_BASE_URL: gateway, E2E_OUTBOX_DIR: sink.dir } },
  );
  if (e2e !== 0) fail(`the e2e smoke pass through the gateway's Service failed (exit ${e2e})`);
  const logs = path.join(work, 'pods.log');
  writeFileSync(logs, podLogs());
  const zz = await run(
    path.join(ROOT, 'scripts/node24.sh'),
    ['vitest', 'run', '--project', 'e2e', 'test/e2e/zz-logs.test.ts'],
    {
      env: { ...process.env, E2E_BASE_URL: gateway, E2E_OUTBOX_DIR: sink.dir, E2E_LOG_PATH: logs },
    },
  );
  if (zz !== 0) fail(`a secret reached a pod's log (zz-logs, ${logs})`);
  log("e2e smoke pass held; no secret in the pods' logs");

  // 3. The k6 graph smoke through the Service.
  const results = path.join(work, 'k6');
  const k6 = await run('bash', ['scripts/tools/load-graph.sh'], {
    env: { ...process.env, BASE_URL: gateway, OUTBOX_DIR: sink.dir, ALLOW_REMOTE_TARGET: '1', RESULTS_DIR: results },
  });
  if (k6 !== 0) fail(`the k6 graph smoke through the cluster failed (exit ${k6})`);
  figures['k6 smoke summary'] = path.join(results, 'graph-summary.json');

  const auth = await signIn(gateway, sink.dir, 'roll');

  // 4. helm upgrade to another tag while a client keeps calling.
  const upgradeFrom = new Date(Date.now() - 2000);
  const writer = new Writer(gateway, auth, 'upgrade').start();
  await sleep(2000);
  const up = await run(
    'helm',
    [
      'upgrade',
      '--install',
      RELEASE,
      'deploy/helm/knowledge-graph',
      '-n',
      NS,
      '-f',
      'my-values.yaml',
      '-f',
      'internal-keys.values.yaml',
      '--set',
      `image.tag=${nextTag}`,
      '--wait',
      '--timeout',
      '15m',
    ],
    { cwd: dir },
  );
  await sleep(3000);
  await writer.stop();
  if (up !== 0) fail(`helm upgrade failed (exit ${up})`);
  log(`upgrade: ${writer.requests} requests during the roll, ${writer.failures.length} failed`);
  if (writer.failures.length)
    fail(`requests failed during the upgrade: ${JSON.stringify(writer.failures.slice(0, 5))}`);
  if (writer.requests < 20)
    fail(`only ${writer.requests} requests during the upgrade: the client did not keep calling`);
  figures['requests during the upgrade (failed)'] = `${writer.requests} (0)`;
  const jobPods = kjson<{
    items: Array<{
      reason: string;
      involvedObject: { kind: string; name: string };
      firstTimestamp: string | null;
      eventTime: string | null;
      count?: number;
    }>;
  }>('-n', NS, 'get', 'events', '--field-selector', 'involvedObject.kind=Job').items.filter(
    (e) => e.reason === 'SuccessfulCreate' && new Date(e.firstTimestamp ?? e.eventTime ?? 0) >= upgradeFrom,
  );
  const migrations = jobPods.filter((e) => e.involvedObject.name.includes('migrations'));
  const created = migrations.reduce((n, e) => n + (e.count ?? 1), 0);
  if (created !== 1)
    fail(`the migrations Job made ${created} pods during the upgrade (want 1): ${JSON.stringify(migrations)}`);
  // helm's --wait ends once the new pods are ready; the old ones may still be draining
  // (SHUTDOWN_DRAIN_MS, then their grace period): each must be gone within 120 s.
  const stale = () =>
    ['gateway', 'auth', 'graph', 'para', 'captures', 'search', 'ingest-worker']
      .flatMap((component) => podsOf(component))
      .filter((pod) => !pod.spec.containers.every((c) => c.image.endsWith(`:${nextTag}`)))
      .map((pod) => `${pod.metadata.name} (${pod.spec.containers.map((c) => c.image).join(', ')})`);
  for (let i = 0; stale().length > 0; i++) {
    if (i >= 120) fail(`pods still on the old image 120 s after the upgrade: ${stale().join(', ')}`);
    await sleep(1000);
  }
  log('upgrade: the migrations Job ran once, every pod runs the new image, no request failed');

  // 5. Faults under load.
  const probe = await call<{ id: string }>(gateway, 'POST', '/nodes', {
    auth,
    body: {
      title: 'Sourdough starter care',
      content:
        'Feed the starter with flour and water every day; keep it in a warm spot so the wild yeast stays active.',
    },
  });
  if (probe.status !== 201) fail(`probe node: ${probe.status} ${probe.text}`);
  const semantic = `mode=semantic&query=${encodeURIComponent('maintaining a fermented dough culture')}`;
  const before = await findNode(gateway, auth, semantic, probe.body.id, 180_000);
  if (!before) fail('semantic search never found the probe node before the faults');
  const faults = new Writer(gateway, auth, 'faults').start();
  for (const component of ['graph', 'search']) {
    const victim = podsOf(component)[0] ?? fail(`no ${component} pod`);
    log(`fault: deleting ${victim.metadata.name}`);
    kubectl('-n', NS, 'delete', 'pod', victim.metadata.name, '--wait=false');
    await sleep(1000);
    await waitRolledOut(`deployment/${FULL}-${component}`);
  }
  await sleep(5000);
  log('fault: Kafka gone for 60 s');
  kubectl('-n', INFRA_NS, 'scale', 'statefulset', 'kafka', '--replicas=0');
  await sleep(60_000);
  const during = await call<{ id: string }>(gateway, 'POST', '/nodes', {
    auth,
    body: { title: 'Written while Kafka was away', content: 'The quokka photographs itself near Rottnest harbour.' },
  });
  if (during.status !== 201) fail(`a write while Kafka was away: ${during.status} ${during.text}`);
  kubectl('-n', INFRA_NS, 'scale', 'statefulset', 'kafka', '--replicas=1');
  sh('kubectl', ['-n', INFRA_NS, 'rollout', 'status', 'statefulset/kafka', '--timeout=300s'], { quiet: true });
  await faults.stop();
  log(
    `faults: ${faults.requests} requests, ${faults.acknowledged.length} nodes acknowledged, ${faults.failures.length} failed`,
  );
  // A request in flight to a deleted pod may fail (its answer never came, so it was not
  // acknowledged): it is counted and shown, and only acknowledged writes must survive.
  if (faults.failures.length) log(`faults: the failed requests: ${JSON.stringify(faults.failures.slice(0, 5))}`);
  figures['requests during the faults (failed)'] = `${faults.requests} (${faults.failures.length})`;
  const lost = await missingNodes(gateway, auth, [...writer.acknowledged, ...faults.acknowledged, during.body.id]);
  if (lost.length) fail(`${lost.length} acknowledged nodes were lost: ${lost.slice(0, 5).join(', ')}`);
  const after = await findNode(gateway, auth, semantic, probe.body.id, 180_000);
  if (!after) fail('semantic search no longer finds the probe node after the graph and search pods were deleted');
  const keyword = await findNode(
    gateway,
    auth,
    `mode=keyword&query=${encodeURIComponent('quokka Rottnest')}`,
    during.body.id,
    300_000,
  );
  if (!keyword) fail('a node written while Kafka was away never became searchable after it came back');
  log(
    `faults: nothing acknowledged lost; semantic rank ${before} before, ${after} after; the Kafka-outage node found (rank ${keyword})`,
  );

  // 6. helm uninstall: nothing of the release is left.
  sh('helm', ['uninstall', RELEASE, '-n', NS, '--wait', '--timeout', '5m']);
  // helm waits for the objects it made; their pods go by garbage collection, each after its grace period.
  for (let i = 0; kjson<{ items: Pod[] }>('-n', NS, 'get', 'pods').items.length > 0; i++) {
    if (i >= 180) fail('pods of the release were still there 180 s after helm uninstall');
    await sleep(1000);
  }
  const kinds = kubectl('api-resources', '--verbs=list', '--namespaced', '-o', 'name')
    .split('\n')
    .filter((k) => k && !/^(events|events\.events\.k8s\.io)$/.test(k));
  const left = kjson<{ items: Array<{ kind: string; metadata: { name: string } }> }>('-n', NS, 'get', kinds.join(','))
    .items.map((o) => `${o.kind}/${o.metadata.name}`)
    .filter(
      (o) =>
        ![
          'ConfigMap/kube-root-ca.crt',
          'ServiceAccount/default',
          // What the README's block made, which the chart does not own (deploy/README.md: they stay).
          'Secret/kg-secrets',
          'Secret/kg-postgres',
          'Secret/kg-qdrant',
          ...['gateway', 'auth', 'graph', 'para', 'captures', 'search', 'ingest-worker'].map(
            (s) => `Secret/kg-internal-${s}`,
          ),
          // Qdrant's volume is kept on purpose (README "Uninstall"); its claim is the only object.
          `PersistentVolumeClaim/storage-${FULL}-qdrant-0`,
        ].includes(o),
    );
  if (left.length) fail(`helm uninstall left ${left.length} objects: ${left.join(', ')}`);
  log('uninstall: nothing of the release is left (the Secrets made by hand and the Qdrant claim stay, as documented)');

  await sink.close();
  console.log('\nk8s-test figures:');
  for (const [k, v] of Object.entries(figures)) console.log(`  ${k}: ${v}`);
}

/** Every pod's log in the release's namespace (all containers, previous instances too). */
function podLogs(): string {
  const out: string[] = [];
  for (const pod of kjson<{ items: Pod[] }>('-n', NS, 'get', 'pods').items)
    for (const c of pod.spec.containers) {
      try {
        out.push(sh('kubectl', ['-n', NS, 'logs', pod.metadata.name, '-c', c.name], { quiet: true }));
      } catch {
        // a pod that has gone meanwhile
      }
    }
  return out.join('\n');
}

mkdirSync(tmpdir(), { recursive: true });
main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(`k8s-test: FAIL ${(err as Error).message}`);
    process.exit(1);
  },
);
