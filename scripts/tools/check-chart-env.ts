/**
 * Parses the env the Helm chart gives each container with that service's own zod config
 * schema (services/<name>/src/config.ts; `env.migrateConfigSchema` for the migrations Job's
 * `main.ts migrate`): the contract between chart and code, checked offline. Reads `helm template` output on stdin; env comes from the ConfigMap (envFrom),
 * plain values, and secretKeyRefs resolved from the rendered Secrets, or, for Secrets that
 * exist outside the chart (existingSecret), from dummy values named by the env variable.
 *
 *   helm template kg deploy/helm/knowledge-graph -f values.yaml | scripts/node24.sh tsx scripts/tools/check-chart-env.ts
 */
import { readFileSync } from 'node:fs';
import { parseAllDocuments } from 'yaml';
import type { z } from 'zod';
import { env as fields, loadConfig } from '@kg/config';

interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: { secretKeyRef?: { name: string; key: string; optional?: boolean } };
}
interface Container {
  name: string;
  args?: string[];
  env?: EnvVar[];
  envFrom?: Array<{ configMapRef?: { name: string } }>;
}
interface Manifest {
  kind: string;
  metadata: { name: string };
  data?: Record<string, string>;
  spec?: { template?: { spec?: { containers: Container[]; initContainers?: Container[] } } };
}

/** Stand-ins for Secrets that live outside the chart (values-example.yaml's existingSecret). */
const EXTERNAL: Record<string, string> = {
  DATABASE_URL: 'postgres://kg:secret@postgres.data:5432/kg',
  REDIS_URL: 'redis://:secret@redis.data:6379/0',
  INTERNAL_SIGNING_KEY: JSON.stringify({ kty: 'OKP', crv: 'Ed25519', x: 'x'.repeat(43), d: 'd'.repeat(43) }),
  API_KEY_PEPPER: 'p'.repeat(48),
  AUTH_SIGNING_KEY: '{"kty":"OKP","crv":"Ed25519","d":"ZA","x":"eA"}',
  SMTP_URL: 'smtps://kg:secret@smtp.example.com:465',
  REDIS_PASSWORD: 'secret',
  KAFKA_SASL_USERNAME: 'kg',
  KAFKA_SASL_PASSWORD: 'secret',
  S3_ACCESS_KEY_ID: 'kg-captures',
  S3_SECRET_ACCESS_KEY: 'secret',
  QDRANT_API_KEY: 'secret',
};

const docs = parseAllDocuments(readFileSync(0, 'utf8'))
  .map((d) => d.toJS() as Manifest | null)
  .filter((d): d is Manifest => d !== null);
const byName = (kind: string, name: string) => docs.find((d) => d.kind === kind && d.metadata.name === name);

function envOf(container: Container): Record<string, string> {
  const env: Record<string, string> = {};
  for (const from of container.envFrom ?? []) {
    const map = from.configMapRef && byName('ConfigMap', from.configMapRef.name);
    if (!map) throw new Error(`${container.name}: ConfigMap ${from.configMapRef?.name} is not rendered`);
    Object.assign(env, map.data);
  }
  for (const v of container.env ?? []) {
    const ref = v.valueFrom?.secretKeyRef;
    if (!ref) {
      env[v.name] = v.value ?? '';
      continue;
    }
    const secret = byName('Secret', ref.name);
    const raw = secret ? secret.data?.[ref.key] : EXTERNAL[v.name];
    if (raw === undefined) {
      if (ref.optional) continue;
      throw new Error(`${container.name}: ${v.name} needs key ${ref.key} of Secret ${ref.name}, which it lacks`);
    }
    env[v.name] = secret ? Buffer.from(raw, 'base64').toString('utf8') : raw;
  }
  return env;
}

const schemaName = (service: string) => `${service.replace(/-(\w)/g, (_, c: string) => c.toUpperCase())}ConfigSchema`;

let checked = 0;
const failures: string[] = [];
for (const doc of docs) {
  const pod = doc.spec?.template?.spec;
  if (!pod) continue;
  for (const container of [...(pod.initContainers ?? []), ...pod.containers]) {
    const service = /^services\/([a-z-]+)\/src\/main\.ts$/.exec(container.args?.[0] ?? '')?.[1];
    if (!service) continue;
    // `main.ts migrate` (the migrations Job) parses only env.migrateConfigSchema.
    const migrate = container.args?.[1] === 'migrate';
    const module = migrate
      ? { [schemaName(service)]: fields.migrateConfigSchema }
      : ((await import(`../../services/${service}/src/config.ts`)) as Record<string, z.ZodType>);
    const schema = module[schemaName(service)];
    if (!schema) throw new Error(`services/${service}/src/config.ts exports no ${schemaName(service)}`);
    try {
      loadConfig(service, schema, envOf(container));
      checked++;
    } catch (err) {
      failures.push(`${doc.kind}/${doc.metadata.name} ${container.name}: ${(err as Error).message}`);
    }
  }
}
if (failures.length > 0) {
  for (const f of failures) console.error(`FAIL ${f}`);
  process.exit(1);
}
if (checked === 0) {
  console.error('check-chart-env: no service container found');
  process.exit(1);
}
console.log(`check-chart-env: ${checked} containers, each service accepts its env`);
