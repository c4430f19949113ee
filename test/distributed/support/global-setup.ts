import { createServer, type Server } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { startCluster, type Cluster, type InfraComponent } from '../../../scripts/distributed/cluster';
import { freePort, freePortBlock } from './ports';
import { testOidcSettings } from '../../e2e/support/global-setup';

let cluster: Cluster | null = null;
let control: Server | null = null;
let dataDir = '';

/**
 * Starts real Postgres, Redis, Kafka, MinIO and Qdrant (scripts/infra; a Qdrant of the run's
 * own, on a port of its block and storage in its folder) and the seven services as separate
 * processes, then serves a small control endpoint so tests can stop and restart a service or a
 * piece of infrastructure mid-run. KG_DISTRIBUTED_VECTORS=in-process runs search on the
 * in-process index instead of Qdrant (to see what the Qdrant tests catch).
 */
export async function setup(project: TestProject) {
  dataDir = mkdtempSync(path.join(tmpdir(), 'kg-dist-'));
  const gatewayPort = await freePort();
  const oidc = testOidcSettings(await freePort());
  cluster = await startCluster({
    dataDir,
    gatewayPort,
    basePort: await freePortBlock(18200),
    manageInfra: true,
    freshDatabase: true,
    vectors: process.env['KG_DISTRIBUTED_VECTORS'] === 'in-process' ? 'in-process' : 'qdrant',
    // qdrant-outage.test.ts kills it: a Qdrant of the suite's own, so no one else's is touched.
    ownQdrant: true,
    extraEnv: {
      MAGIC_LINK_PER_IP_PER_HOUR: '1000',
      // ingest-faults.test.ts captures 200 notes in one tenant within a minute, past the default
      // capture limits (60 a minute per tenant, 30 per credential; e2e rate-limits.test.ts tests those).
      CAPTURE_RATE_LIMIT_PER_MINUTE: '100000',
      CAPTURE_RATE_LIMIT_PER_CREDENTIAL_PER_MINUTE: '100000',
      // The ingest worker: tests fetch from local servers; a short lease and sweep so a killed worker's runs resume quickly.
      FETCH_ALLOWLIST: '127.0.0.1',
      // Per-host politeness stays on, at a loopback's scale: every page of the suite is on 127.0.0.1
      // or a made-up host (bookmarks.invalid), and the suite's files run side by side. A flood of
      // one host's captures holds nobody else's (host-lanes.ts); the defaults (2 at once, 500 ms
      // apart) are tested in host-gate*.test.ts, the browser suite and bench:import.
      FETCH_MAX_PER_HOST: '8',
      FETCH_HOST_INTERVAL_MS: '20',
      // Webhook receivers the tests start on loopback; retries a second apart instead of 5 s, 30 s….
      WEBHOOK_ALLOWLIST: '127.0.0.1',
      WEBHOOK_RETRY_DELAYS_MS: '300,1000',
      // imports.test.ts sends one byte more than this (413) without sending 100 MiB.
      IMPORT_MAX_BYTES: String(8 * 1024 * 1024),
      // webhooks-faults.test.ts kills captures mid-batch: its claims expire after 12 s, not a minute.
      WEBHOOK_LEASE_MS: '12000',
      INGEST_LEASE_MS: '8000',
      INGEST_STAGE_TIMEOUT_MS: '5000',
      INGEST_SWEEP_INTERVAL_MS: '2000',
      INGEST_SWEEP_AFTER_MS: '10000',
      // The OpenID provider test/e2e/oidc.test.ts starts on this port (discovery is lazy).
      OIDC_ISSUER: oidc.issuer,
      OIDC_CLIENT_ID: oidc.clientId,
      OIDC_CLIENT_SECRET: oidc.clientSecret,
    },
  });
  const c = cluster;
  control = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const name = url.searchParams.get('name') ?? '';
    const action = url.pathname.slice(1);
    const run = async () => {
      if (action === 'stop') await c.stop(name, (url.searchParams.get('signal') as NodeJS.Signals | null) ?? 'SIGTERM');
      else if (action === 'start') await c.start(name);
      else if (action === 'infra')
        await c.infra(name as InfraComponent, url.searchParams.get('do') as 'start' | 'stop' | 'kill');
      else throw new Error(`unknown action ${action}`);
    };
    run().then(
      () => res.end('ok'),
      (err: unknown) => {
        res.statusCode = 500;
        res.end(String(err));
      },
    );
  });
  const controlPort = await freePort();
  await new Promise<void>((resolve) => control!.listen(controlPort, '127.0.0.1', () => resolve()));
  const services = Object.fromEntries(c.specs.map((s) => [s.name, `http://127.0.0.1:${s.port}`]));
  project.provide('baseUrl', c.gatewayUrl);
  project.provide('outboxDir', c.outboxDir);
  project.provide('logPath', c.combinedLog);
  project.provide('oidc', oidc);
  const secretsPath = path.join(dataDir, 'secrets-seen.txt');
  writeFileSync(secretsPath, '');
  project.provide('secretsPath', secretsPath);
  project.provide('controlUrl', `http://127.0.0.1:${controlPort}`);
  project.provide('serviceUrls', services);
  project.provide('qdrantUrl', c.qdrantUrl ?? '');
  project.provide('metricsUrls', Object.fromEntries(c.specs.map((s) => [s.name, `http://127.0.0.1:${s.metricsPort}`])));
  project.provide('kafkaBrokers', c.specs.find((s) => s.name === 'graph')!.env['KAFKA_BROKERS']!);
  // Each service's own internal signing key, so a test can call a service exactly as that service would.
  project.provide(
    'internalSigningKeys',
    Object.fromEntries(c.specs.map((s) => [s.name, s.env['INTERNAL_SIGNING_KEY']!])),
  );
}

export async function teardown() {
  await new Promise<void>((resolve) => (control ? control.close(() => resolve()) : resolve()));
  await cluster?.stopAll();
  // The run's folder (the services' logs, the secrets the suite saw) goes, unless KG_KEEP_TEST_DATA=1.
  if (dataDir && process.env['KG_KEEP_TEST_DATA'] !== '1') rmSync(dataDir, { recursive: true, force: true });
}

declare module 'vitest' {
  export interface ProvidedContext {
    controlUrl: string;
    serviceUrls: Record<string, string>;
    /** Each service's /metrics listener (METRICS_PORT). */
    metricsUrls: Record<string, string>;
    /** Private internal-token JWK (JSON) of each service, by service name. */
    internalSigningKeys: Record<string, string>;
    kafkaBrokers: string;
    /** The Qdrant every search replica uses ('' with the in-process index). */
    qdrantUrl: string;
  }
}
