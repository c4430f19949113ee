// Asserts the rules of the knowledge-graph chart on rendered manifests (what kubeconform's
// schemas cannot say): every component present, pods hardened, probes, only the gateway
// exposed, secrets only where needed, migrations ordered as a hook, the graph's headless Service.
//
//   helm template kg deploy/helm/knowledge-graph | node scripts/tools/check-manifests.mjs [existing secret names…]
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

// `yaml` is in the repo's node_modules (npm ci); resolve it from the repository root.
const require = createRequire(new URL('../../package.json', import.meta.url));
const { parseAllDocuments } = require('yaml');

const docs = parseAllDocuments(readFileSync(0, 'utf8'))
  .map((d) => d.toJS())
  .filter(Boolean);
const existingSecrets = new Set(process.argv.slice(2));
const failures = [];
const expect = (ok, message) => ok || failures.push(message);

const COMPONENTS = {
  gateway: 8080,
  auth: 3001,
  graph: 3002,
  para: 3004,
  captures: 3005,
  search: 3006,
  'ingest-worker': 3007,
};
const INTERNAL = Object.keys(COMPONENTS).filter((c) => c !== 'gateway');
// The services that publish or consume on Kafka (their config has KAFKA_BROKERS).
const KAFKA_CLIENTS = ['auth', 'gateway', 'graph', 'para', 'captures', 'search', 'ingest-worker'];
// The services that use Redis: the gateway (rate limits, cursors, kept views), graph (cursors, view
// tokens), para (view tokens) and the ingest worker (per-host fetch limits shared by its replicas).
const REDIS_CLIENTS = ['gateway', 'graph', 'para', 'ingest-worker'];
const component = (o) => o.metadata?.labels?.['app.kubernetes.io/component'];
const of = (kind) => docs.filter((d) => d.kind === kind);
const headless = (service) => service.spec.clusterIP === 'None';
const name = (o) => `${o.kind}/${o.metadata.name}`;

const rendered = new Set(of('Secret').map((s) => s.metadata.name));
const secretRefs = (container) =>
  (container.env ?? []).filter((e) => e.valueFrom?.secretKeyRef).map((e) => [e.name, e.valueFrom.secretKeyRef]);

function checkPod(owner, spec) {
  const where = name(owner);
  expect(spec.securityContext?.runAsNonRoot === true, `${where}: pod runAsNonRoot`);
  expect(spec.securityContext?.seccompProfile?.type === 'RuntimeDefault', `${where}: pod seccomp RuntimeDefault`);
  expect(spec.automountServiceAccountToken === false, `${where}: no service account token`);
  const tmp = (spec.volumes ?? []).find((v) => v.name === 'tmp');
  expect(tmp?.emptyDir, `${where}: an emptyDir volume for /tmp`);
  for (const c of [...(spec.initContainers ?? []), ...spec.containers]) {
    const sc = c.securityContext ?? {};
    const at = `${where} container ${c.name}`;
    expect(sc.allowPrivilegeEscalation === false, `${at}: allowPrivilegeEscalation false`);
    expect(sc.readOnlyRootFilesystem === true, `${at}: readOnlyRootFilesystem`);
    expect(sc.capabilities?.drop?.includes('ALL'), `${at}: capabilities drop ALL`);
    expect(c.resources?.requests && c.resources?.limits?.memory, `${at}: resources requests and memory limit`);
    for (const [env, ref] of secretRefs(c))
      expect(
        rendered.has(ref.name) || existingSecrets.has(ref.name),
        `${at}: ${env} refers to Secret ${ref.name}, which is neither rendered nor given as existing`,
      );
  }
}

// Every component: a Deployment and a Service, labelled with its component.
const signingKeyRefs = new Map();
for (const [c, port] of Object.entries(COMPONENTS)) {
  const deployment = of('Deployment').find((d) => component(d) === c);
  const service = of('Service').find((s) => component(s) === c && !headless(s));
  expect(deployment, `Deployment of ${c}`);
  expect(service, `Service of ${c}`);
  if (!deployment || !service) continue;
  const pod = deployment.spec.template.spec;
  const main = pod.containers[0];
  checkPod(deployment, pod);
  expect(main.args?.[0] === `services/${c}/src/main.ts`, `${c}: container runs services/${c}/src/main.ts`);
  expect(main.ports?.[0]?.containerPort === port, `${c}: listens on ${port}`);
  expect(main.env?.find((e) => e.name === 'PORT')?.value === String(port), `${c}: PORT=${port}`);
  expect(main.livenessProbe?.httpGet?.path === '/healthz', `${c}: liveness on /healthz`);
  expect(main.readinessProbe?.httpGet?.path === '/readyz', `${c}: readiness on /readyz`);
  expect(
    main.volumeMounts?.some((m) => m.name === 'tmp' && m.mountPath === '/tmp'),
    `${c}: /tmp mounted`,
  );
  expect(service.spec.ports[0].port === port, `${c}: Service port ${port}`);
  if (c !== 'gateway')
    expect(service.spec.type === 'ClusterIP', `${c}: Service is ClusterIP (not reachable from outside)`);
  const secrets = secretRefs(main).map(([env]) => env);
  // The gateway and the ingest worker keep no data of their own.
  const wantsDatabase = c !== 'gateway' && c !== 'ingest-worker';
  expect(
    secrets.includes('DATABASE_URL') === wantsDatabase,
    `${c}: DATABASE_URL ${wantsDatabase ? 'given' : 'not given'}`,
  );
  // Its own internal signing key, from a Secret key no other component reads.
  const own = secretRefs(main).find(([env]) => env === 'INTERNAL_SIGNING_KEY')?.[1];
  expect(own, `${c}: INTERNAL_SIGNING_KEY given`);
  if (own) {
    const ref = `${own.name}/${own.key}`;
    expect(!signingKeyRefs.has(ref), `${c}: INTERNAL_SIGNING_KEY ${ref} is ${signingKeyRefs.get(ref)}'s too`);
    signingKeyRefs.set(ref, c);
  }
  expect(!secrets.includes('INTERNAL_TOKEN_SECRET'), `${c}: no shared INTERNAL_TOKEN_SECRET`);
  for (const only of ['AUTH_SIGNING_KEY', 'API_KEY_PEPPER', 'SMTP_URL'])
    expect(secrets.includes(only) === (c === 'auth'), `${c}: ${only} ${c === 'auth' ? 'given' : 'withheld'}`);
  expect(
    secrets.includes('REDIS_URL') === REDIS_CLIENTS.includes(c),
    `${c}: REDIS_URL only for ${REDIS_CLIENTS.join(', ')}`,
  );
}

// Metrics on a port of their own: every pod exposes `metrics`, scrape annotations point at it,
// only ClusterIP Services carry it, the Ingress never routes it, passwords never sit in the ConfigMap.
const config = of('ConfigMap')[0]?.data ?? {};
const metricsPort = Number(config.METRICS_PORT);
expect(metricsPort > 0, 'ConfigMap sets METRICS_PORT');
expect(Number(config.KAFKA_REPLICATION_FACTOR) >= 1, 'ConfigMap sets KAFKA_REPLICATION_FACTOR');
for (const secret of [
  'KAFKA_SASL_USERNAME',
  'KAFKA_SASL_PASSWORD',
  'REDIS_PASSWORD',
  'DATABASE_URL',
  'REDIS_URL',
  'S3_ACCESS_KEY_ID',
  'S3_SECRET_ACCESS_KEY',
  'QDRANT_API_KEY',
])
  expect(!(secret in config), `${secret} is not in the ConfigMap (Secrets only)`);
for (const deployment of of('Deployment')) {
  const c = component(deployment);
  const main = deployment.spec.template.spec.containers[0];
  const port = main.ports?.find((p) => p.name === 'metrics');
  expect(port?.containerPort === metricsPort, `${c}: container port "metrics" is ${metricsPort}`);
  expect(port?.containerPort !== main.ports?.[0]?.containerPort, `${c}: metrics port differs from the http port`);
  const scrape = deployment.spec.template.metadata.annotations?.['prometheus.io/port'];
  if (scrape !== undefined) expect(Number(scrape) === metricsPort, `${c}: prometheus.io/port is the metrics port`);
  const secrets = secretRefs(main).map(([env]) => env);
  const plain = (main.env ?? []).filter((e) => !e.valueFrom).map((e) => e.name);
  for (const env of ['KAFKA_SASL_USERNAME', 'KAFKA_SASL_PASSWORD', 'REDIS_PASSWORD'])
    expect(!plain.includes(env), `${c}: ${env} comes from a Secret, never a plain value`);
  if (config.KAFKA_SASL_MECHANISM)
    for (const env of ['KAFKA_SASL_USERNAME', 'KAFKA_SASL_PASSWORD'])
      expect(
        secrets.includes(env) === KAFKA_CLIENTS.includes(c),
        `${c}: ${env} only for ${KAFKA_CLIENTS.join(', ')} (the Kafka clients)`,
      );
  if (secrets.includes('REDIS_PASSWORD')) expect(REDIS_CLIENTS.includes(c), `${c}: REDIS_PASSWORD withheld`);
  for (const env of ['S3_ACCESS_KEY_ID', 'S3_SECRET_ACCESS_KEY'])
    expect(secrets.includes(env) === (c === 'captures'), `${c}: ${env} only for captures (the object storage client)`);
  if (c !== 'search') expect(!secrets.includes('QDRANT_API_KEY'), `${c}: QDRANT_API_KEY only for search`);
  expect(!plain.includes('QDRANT_API_KEY'), `${c}: QDRANT_API_KEY comes from a Secret, never a plain value`);
}
// Qdrant serves /metrics on its API port (behind the API key): its Services carry no metrics port.
// A headless Service (the graph's replicas) carries none either: a ServiceMonitor would scrape each pod twice.
for (const service of of('Service').filter((s) => component(s) !== 'qdrant')) {
  const metrics = service.spec.ports.find((p) => p.name === 'metrics' || p.targetPort === 'metrics');
  if (headless(service)) expect(!metrics, `${name(service)}: a headless Service does not carry the metrics port`);
  else if (service.spec.type && service.spec.type !== 'ClusterIP')
    expect(!metrics, `${name(service)}: a ${service.spec.type} Service does not carry the metrics port`);
  else expect(metrics?.port === metricsPort, `${name(service)}: ClusterIP Service carries the metrics port`);
}
const gatewayService = of('Service').find((s) => component(s) === 'gateway');
for (const ingress of of('Ingress')) {
  const backends = [
    ingress.spec.defaultBackend,
    ...ingress.spec.rules.flatMap((r) => r.http.paths.map((p) => p.backend)),
  ]
    .filter(Boolean)
    .map((b) => b.service);
  for (const b of backends) {
    expect(b.name === gatewayService?.metadata.name, `${name(ingress)}: routes to the gateway only (got ${b.name})`);
    expect(
      b.port.name === 'http' || b.port.number === COMPONENTS.gateway,
      `${name(ingress)}: targets the gateway's http port, never metrics (got ${JSON.stringify(b.port)})`,
    );
  }
  expect(
    Number(config.TRUST_PROXY_HOPS) >= 1,
    `${name(ingress)}: TRUST_PROXY_HOPS is at least 1 behind the chart's Ingress (got ${config.TRUST_PROXY_HOPS})`,
  );
}

// Only the gateway takes traffic from outside: internal services accept release pods only.
const policies = of('NetworkPolicy');
if (policies.length > 0) {
  const internal = policies.find((p) =>
    p.spec.podSelector.matchExpressions?.some((e) => e.key === 'app.kubernetes.io/component'),
  );
  expect(internal, 'a NetworkPolicy for the internal services');
  const selected = internal?.spec.podSelector.matchExpressions.find((e) => e.key === 'app.kubernetes.io/component');
  expect(
    selected?.operator === 'In' && [...selected.values].sort().join() === [...INTERNAL].sort().join(),
    'internal NetworkPolicy selects exactly the six internal services',
  );
  for (const rule of internal?.spec.ingress ?? [])
    expect(rule.from?.length > 0, 'every ingress rule of the internal services names its peers');
  const release = internal?.spec.podSelector.matchLabels;
  expect(
    internal?.spec.ingress[0].from[0].podSelector?.matchLabels?.['app.kubernetes.io/instance'] ===
      release?.['app.kubernetes.io/instance'],
    'internal services accept pods of this release',
  );
  const gateway = policies.find((p) => p.spec.podSelector.matchLabels?.['app.kubernetes.io/component'] === 'gateway');
  expect(gateway, 'a NetworkPolicy for the gateway');
  // The metrics port opens only to the scrapers (networkPolicy.metricsFrom), never with the http port.
  for (const policy of policies)
    for (const rule of policy.spec.ingress ?? []) {
      const ports = (rule.ports ?? []).map((p) => p.port);
      expect(ports.length > 0, `${name(policy)}: every rule names its ports (none opens every port)`);
      if (ports.includes('metrics') || ports.includes(metricsPort))
        expect(
          ports.length === 1 && rule.from?.length > 0,
          `${name(policy)}: the metrics port opens alone, to named scrapers only`,
        );
    }
}

// Tenant-affine graph replicas: the gateway resolves a headless Service of the Ready graph pods
// (GRAPH_REPLICAS_DNS) and calls the pods directly; GRAPH_URL (the ClusterIP Service) stays the fallback.
checkGraphReplicas();
function checkGraphReplicas() {
  const gateway = of('Deployment').find((d) => component(d) === 'gateway')?.spec.template.spec.containers[0];
  const graph = of('Service').find((s) => component(s) === 'graph' && !headless(s));
  if (!gateway || !graph) return;
  const plainValue = (env) => gateway.env?.find((e) => e.name === env && !e.valueFrom)?.value;
  const url = plainValue('GRAPH_REPLICAS_DNS');
  const replicas = of('Service').filter((s) => component(s) === 'graph' && headless(s));
  expect(replicas.length === 1, `graph: one headless Service of its pods (got ${replicas.length})`);
  const svc = replicas[0];
  if (svc) {
    const http = svc.spec.ports.find((p) => p.name === 'http');
    expect(
      JSON.stringify(svc.spec.selector) === JSON.stringify(graph.spec.selector),
      `${name(svc)}: selects the graph Service's pods`,
    );
    expect(
      svc.spec.publishNotReadyAddresses === false,
      `${name(svc)}: publishes Ready pods only (publishNotReadyAddresses: false)`,
    );
    expect(
      http?.port === COMPONENTS.graph && http.targetPort === 'http',
      `${name(svc)}: port ${COMPONENTS.graph} to the pods' http port`,
    );
    expect(
      url === `http://${svc.metadata.name}:${COMPONENTS.graph}`,
      `gateway: GRAPH_REPLICAS_DNS ${url} is the graph's headless Service at port ${COMPONENTS.graph}`,
    );
  }
  expect(
    ['tenant', 'round-robin'].includes(plainValue('GRAPH_ROUTING')),
    `gateway: GRAPH_ROUTING is tenant or round-robin (got ${plainValue('GRAPH_ROUTING')})`,
  );
}

// Vectors (search.vectors): Qdrant shared by every search replica (the chart's StatefulSet or an
// external URL), or the in-process index in the pod's /tmp with exactly one replica.
checkVectors();
function checkVectors() {
  const search = of('Deployment').find((d) => component(d) === 'search');
  const main = search?.spec.template.spec.containers[0];
  if (!main) return;
  const plainValue = (env) => main.env?.find((e) => e.name === env && !e.valueFrom)?.value;
  const url = plainValue('QDRANT_URL');
  const qdrant = of('StatefulSet').find((s) => component(s) === 'qdrant');
  if (!url) {
    expect(!qdrant, 'no Qdrant StatefulSet when search keeps its vectors in-process');
    expect(plainValue('VECTORS_DIR')?.startsWith('/tmp/'), 'search: in-process VECTORS_DIR in the /tmp emptyDir');
    const hpa = of('HorizontalPodAutoscaler').find((h) => component(h) === 'search');
    const most = hpa ? hpa.spec.maxReplicas : search.spec.replicas;
    expect(most === 1, `search: in-process vectors with one replica only (got up to ${most})`);
    return;
  }
  expect(!plainValue('VECTORS_DIR'), 'search: no VECTORS_DIR beside QDRANT_URL');
  if (!qdrant) return; // an external Qdrant
  const svc = of('Service').find((s) => component(s) === 'qdrant' && s.spec.clusterIP !== 'None');
  expect(
    svc && url === `http://${svc.metadata.name}:${svc.spec.ports[0].port}`,
    `search: QDRANT_URL ${url} is the Qdrant Service's port`,
  );
  expect(
    of('Service').some(
      (s) => component(s) === 'qdrant' && s.spec.clusterIP === 'None' && s.metadata.name === qdrant.spec.serviceName,
    ),
    'Qdrant: its headless Service names the StatefulSet (serviceName)',
  );
  const pod = qdrant.spec.template.spec;
  const c = pod.containers[0];
  checkPod(qdrant, pod);
  expect(qdrant.spec.replicas === 1, 'Qdrant: one node');
  expect(
    /:v\d+\.\d+\.\d+$|@sha256:[a-f0-9]{64}$/.test(c.image),
    `Qdrant: image pinned by version or digest (got ${c.image})`,
  );
  expect(c.readinessProbe?.httpGet?.path === '/readyz', 'Qdrant: readiness on /readyz');
  expect(c.livenessProbe?.httpGet?.path === '/livez', 'Qdrant: liveness on /livez');
  const storage = qdrant.spec.volumeClaimTemplates?.find((v) => v.metadata.name === 'storage');
  expect(storage?.spec.resources.requests.storage, 'Qdrant: storage on a PersistentVolumeClaim (volumeClaimTemplates)');
  expect(
    c.volumeMounts?.some((m) => m.name === 'storage' && m.mountPath === '/qdrant/storage'),
    'Qdrant: the claim mounted at /qdrant/storage',
  );
  // The one API key: Qdrant requires what search sends, from the same Secret key.
  const ref = (container, env) => container.env?.find((e) => e.name === env)?.valueFrom?.secretKeyRef;
  const served = ref(c, 'QDRANT__SERVICE__API_KEY');
  const sent = ref(main, 'QDRANT_API_KEY');
  expect(served, 'Qdrant: QDRANT__SERVICE__API_KEY from a Secret');
  expect(
    served && sent && served.name === sent.name && served.key === sent.key,
    `search: QDRANT_API_KEY is the key Qdrant requires (${sent?.name}/${sent?.key} vs ${served?.name}/${served?.key})`,
  );
  if (policies.length > 0) {
    const own = policies.find((p) => p.spec.podSelector.matchLabels?.['app.kubernetes.io/component'] === 'qdrant');
    expect(own, 'a NetworkPolicy for Qdrant');
    const peers = (own?.spec.ingress ?? []).flatMap((r) => r.from ?? [{ anyone: true }]);
    expect(
      peers.length > 0 &&
        peers.every(
          (p) =>
            p.podSelector?.matchLabels?.['app.kubernetes.io/component'] === 'search' &&
            !p.namespaceSelector &&
            !p.ipBlock,
        ),
      'Qdrant: only the search pods of this release may reach it',
    );
  }
}

// Migrations: a pre-install/pre-upgrade hook Job, auth, para, graph, search in order, with
// the database settings only.
const job = of('Job')[0];
if (job) {
  const a = job.metadata.annotations ?? {};
  expect(a['helm.sh/hook'] === 'pre-install,pre-upgrade', 'migrations Job is a pre-install,pre-upgrade hook');
  expect(a['helm.sh/hook-delete-policy'] === 'before-hook-creation,hook-succeeded', 'migrations Job delete policy');
  expect('helm.sh/hook-weight' in a, 'migrations Job has a hook weight');
  const steps = job.spec.template.spec.initContainers.map((c) => c.args.join(' '));
  const want = ['auth', 'para', 'graph', 'search', 'captures'].map((s) => `services/${s}/src/main.ts migrate`);
  expect(steps.join() === want.join(), `migrations run ${want.join(', ')} in order (got ${steps.join(', ')})`);
  checkPod(job, job.spec.template.spec);
  // Least privilege: `migrate` reads DATABASE_URL, the database timeouts and LOG_LEVEL only;
  // the Job carries no signing key, pepper, SMTP, Redis or Kafka credential, nothing else.
  const MIGRATE_ENV = ['DATABASE_URL', 'DATABASE_STATEMENT_TIMEOUT_MS', 'DATABASE_CONNECT_TIMEOUT_MS', 'LOG_LEVEL'];
  const WITHHELD = [
    'INTERNAL_SIGNING_KEY',
    'INTERNAL_PUBLIC_KEYS',
    'AUTH_SIGNING_KEY',
    'API_KEY_PEPPER',
    'SMTP_URL',
    'REDIS_URL',
    'REDIS_PASSWORD',
    'KAFKA_SASL_USERNAME',
    'KAFKA_SASL_PASSWORD',
    'S3_ACCESS_KEY_ID',
    'S3_SECRET_ACCESS_KEY',
  ];
  for (const c of [...job.spec.template.spec.initContainers, ...job.spec.template.spec.containers]) {
    const names = (c.env ?? []).map((e) => e.name);
    for (const withheld of WITHHELD) expect(!names.includes(withheld), `migrations ${c.name}: no ${withheld}`);
    const secrets = secretRefs(c).map(([env]) => env);
    expect(
      secrets.every((env) => env === 'DATABASE_URL'),
      `migrations ${c.name}: DATABASE_URL is its only secret (got ${secrets.join(', ')})`,
    );
    expect(!c.envFrom, `migrations ${c.name}: no envFrom (it would bring settings migrate does not read)`);
    if (c.name.startsWith('migrate-'))
      for (const env of MIGRATE_ENV) expect(names.includes(env), `migrations ${c.name}: ${env} given`);
  }
  const hookSecrets = of('Secret').filter((s) => s.metadata.annotations?.['helm.sh/hook']);
  for (const s of hookSecrets) {
    const keys = Object.keys(s.data ?? {});
    expect(
      keys.every((k) => k === 'DATABASE_URL'),
      `hook Secret ${s.metadata.name} holds DATABASE_URL only (got ${keys.join(', ')})`,
    );
  }
  for (const c of job.spec.template.spec.initContainers)
    for (const [env, ref] of secretRefs(c)) {
      const hookSecret = of('Secret').find((s) => s.metadata.name === ref.name);
      expect(
        existingSecrets.has(ref.name) || hookSecret?.metadata.annotations?.['helm.sh/hook']?.includes('pre-install'),
        `migrations ${c.name}: ${env} comes from an existing or hook Secret (the release's own do not exist yet)`,
      );
    }
}

// helm test: a hook Pod that checks the gateway.
const test = of('Pod').find((p) => p.metadata.annotations?.['helm.sh/hook'] === 'test');
expect(test, 'a helm test Pod');
if (test) {
  checkPod(test, test.spec);
  const script = JSON.stringify(test.spec.containers[0]);
  expect(
    script.includes('/readyz') && script.includes('/api/v1/openapi.json'),
    'helm test checks /readyz and the OpenAPI',
  );
}

if (failures.length > 0) {
  for (const f of failures) console.error(`FAIL ${f}`);
  console.error(`check-manifests: ${failures.length} failed of ${docs.length} manifests`);
  process.exit(1);
}
console.log(`check-manifests: ${docs.length} manifests, all rules hold`);
