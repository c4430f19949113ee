/**
 * What the operator of scripts/tools/helm-wiring.ts provides around the chart: the outside
 * servers its values name (mapped to the scripts/infra servers on loopback) and the Secrets
 * created before `helm install` (deploy/README.md, Install).
 */
import { execFileSync } from 'node:child_process';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { SERVICE_NAMES } from '@kg/contracts';
import type { Manifest } from './helm-wiring-env';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

// ---------------------------------------------------------------------------------------
// Outside servers: the cluster-style names of the values file -> the scripts/infra servers.
export const infraPort = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
export function outsideServers(smtpPort: number): Map<string, string> {
  return new Map([
    ['postgres.data.svc.cluster.local:5432', `127.0.0.1:${infraPort('KG_PG_PORT', 55432)}`],
    ['redis-master.data.svc.cluster.local:6379', `127.0.0.1:${infraPort('KG_REDIS_PORT', 56379)}`],
    ['kafka-0.kafka-headless.data.svc.cluster.local:9092', `127.0.0.1:${infraPort('KG_KAFKA_PORT', 59092)}`],
    ['minio.storage.svc.cluster.local:9000', `127.0.0.1:${infraPort('KG_MINIO_PORT', 59000)}`],
    ['smtp-relay.mail.svc.cluster.local:25', `127.0.0.1:${smtpPort}`],
  ]);
}

// ---------------------------------------------------------------------------------------
// The Secrets an operator creates before `helm install` (deploy/README.md, Install).
export interface Made {
  secrets: Manifest[];
  valuesFile: string;
  dbName: string;
}
export function operatorSecrets(work: string): Made {
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
    // deploy/README.md: `kubectl create secret generic kg-qdrant --from-literal=QDRANT_API_KEY=…`.
    secret('kg-qdrant', { QDRANT_API_KEY: randomBytes(32).toString('base64') }),
    ...SERVICE_NAMES.map((s) =>
      secret(`kg-internal-${s}`, { INTERNAL_SIGNING_KEY: readFileSync(path.join(keysDir, `${s}.jwk.json`), 'utf8') }),
    ),
  ];
  return { secrets, valuesFile, dbName };
}
