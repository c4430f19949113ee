/**
 * The env each container of the rendered chart gets, for the Helm wiring test
 * (helm-wiring.ts): resolved from the rendered objects (the ConfigMap of envFrom, plain
 * values, secretKeyRefs), checked against what the services read, and made local (hosts
 * rewritten to the scripts/infra servers, ports to free local ones, /tmp to the pod's folder).
 */
import path from 'node:path';
import type { z } from 'zod';
import { SERVICE_NAMES } from '@kg/contracts';
import { env as fields } from '@kg/config';

/** The namespace the chart is rendered into (its Services' cluster names end in it). */
export const NAMESPACE = 'kg';
/** Env the image itself sets (deploy/docker/Dockerfile ENV) and variables Node reads, not the services. */
const IMAGE_ENV = { NODE_ENV: 'production' };
const NODE_VARS = new Set(['NODE_ENV', 'NODE_OPTIONS', 'NODE_EXTRA_CA_CERTS', 'TZ']);
/** Hosts that are the outside world's, left alone (the public URL only appears in mail links). */
const PUBLIC_HOSTS = new Set(['kg.example.com', 'dashboard.example.com']);

export interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: { secretKeyRef?: { name: string; key: string; optional?: boolean } };
}
export interface Container {
  name: string;
  command?: string[];
  args?: string[];
  env?: EnvVar[];
  envFrom?: Array<{ configMapRef?: { name: string }; secretRef?: { name: string } }>;
  ports?: Array<{ name: string; containerPort: number }>;
}
export interface Manifest {
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

export const fail = (msg: string): never => {
  throw new Error(msg);
};

/** The variable names each service's config schema reads (services/<name>/src/config.ts). */
export async function knownVariables(): Promise<Map<string, Set<string>>> {
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

export interface Pod {
  /** Deployment or Job container (a service), or StatefulSet container (the chart's Qdrant). */
  kind: 'Deployment' | 'Job' | 'StatefulSet';
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

/** The StatefulSets the test can run as local processes, by component: the chart's Qdrant (the real server). */
export const STATEFUL = new Set(['qdrant']);

/**
 * The pods to run: the migrations Job's service steps in order, then one process per
 * Deployment, then the StatefulSets' pods (the chart's Qdrant).
 */
export function pods(docs: Manifest[], outside: Manifest[]): Pod[] {
  const out: Pod[] = [];
  for (const doc of docs) {
    if (doc.kind !== 'Deployment' && doc.kind !== 'Job' && doc.kind !== 'StatefulSet') continue;
    const spec = doc.spec?.template?.spec;
    if (!spec) continue;
    const component = doc.spec?.template?.metadata?.labels?.['app.kubernetes.io/component'] ?? doc.metadata.name;
    if (doc.kind === 'StatefulSet') {
      if (!STATEFUL.has(component)) fail(`StatefulSet ${doc.metadata.name}: component ${component} is unknown here`);
      for (const container of spec.containers)
        out.push({ kind: 'StatefulSet', component, container, env: resolveEnv(docs, outside, container) });
      continue;
    }
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
  return [...jobs, ...out.filter((p) => p.kind === 'Deployment'), ...out.filter((p) => p.kind === 'StatefulSet')];
}

const serviceOf = (pod: Pod) => /^services\/([a-z-]+)\/src\/main\.ts$/.exec(pod.container.args?.[0] ?? '')?.[1] ?? '';

/** Every variable is one a service reads: its own schema's (or migrate's), or any service's for the shared ConfigMap. */
export function checkVariables(all: Pod[], known: Map<string, Set<string>>) {
  const anyService = new Set([...known.values()].flatMap((s) => [...s]));
  const problems: string[] = [];
  for (const pod of all) {
    if (pod.kind === 'StatefulSet') {
      // Qdrant reads QDRANT__<SECTION>__<KEY> (its config) and its entry point QDRANT_INIT_FILE_PATH.
      for (const name of Object.keys(pod.env))
        if (!/^QDRANT__[A-Z0-9_]+$/.test(name) && name !== 'QDRANT_INIT_FILE_PATH')
          problems.push(`${pod.container.name}: ${name} is no Qdrant setting`);
      continue;
    }
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

/**
 * The chart's Qdrant requires the very key the search service sends (both non-empty); a
 * Qdrant-less chart sends none, or one to an external server.
 */
export function checkQdrantKey(all: Pod[]) {
  const qdrant = all.find((p) => p.kind === 'StatefulSet' && p.component === 'qdrant');
  const search = all.find((p) => p.kind === 'Deployment' && p.component === 'search');
  if (!qdrant || !search) return;
  const required = qdrant.env['QDRANT__SERVICE__API_KEY']?.value;
  const sent = search.env['QDRANT_API_KEY']?.value;
  if (!required) fail(`${qdrant.container.name}: QDRANT__SERVICE__API_KEY is not set (Qdrant would take any request)`);
  if (sent !== required)
    fail(
      `${search.container.name}: QDRANT_API_KEY is ${sent ? 'another key than' : 'missing, but'} the one Qdrant requires`,
    );
}

// ---------------------------------------------------------------------------------------
// Local ports and the host rewrite.
export interface Local {
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
export function localEnv(
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
    } else if (
      name.startsWith('INTERNAL_') ||
      name === 'AUTH_SIGNING_KEY' ||
      name.endsWith('API_KEY') ||
      value.startsWith('{') ||
      value.startsWith('/')
    ) {
      out[name] = value; // keys (JSON or not) and paths: no hosts inside
    } else {
      out[name] = rewriteHosts(value, services, locals, outside, where);
    }
  }
  return out;
}
