import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  createWriteStream,
  existsSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
  type WriteStream,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';
import { freePort } from './ports';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const READY_TIMEOUT_MS = 90_000;
let server: ChildProcess | null = null;
let log: WriteStream | null = null;
let logFile = '';
let secretsFile = '';
let dataDir = '';

/**
 * Starts the real server exactly as a user does (`npm start`) on a free port with a
 * fresh DATA_DIR, unless E2E_BASE_URL points at one already running (then
 * E2E_OUTBOX_DIR names its mail outbox and E2E_LOG_PATH, optionally, its log).
 */
export async function setup(project: TestProject) {
  dataDir = mkdtempSync(path.join(tmpdir(), 'kg-e2e-'));
  secretsFile = path.join(dataDir, 'secrets-seen.txt');
  writeFileSync(secretsFile, '');
  project.provide('secretsPath', secretsFile);
  if (process.env['E2E_BASE_URL']) {
    project.provide('baseUrl', process.env['E2E_BASE_URL'].replace(/\/+$/, ''));
    project.provide('outboxDir', process.env['E2E_OUTBOX_DIR'] ?? '');
    project.provide('logPath', process.env['E2E_LOG_PATH'] ?? '');
    project.provide('oidc', null);
    return;
  }
  const port = await freePort();
  // The OpenID provider the sign-in tests start (@kg/test-oidc-provider) on this port; discovery is lazy.
  const oidc = testOidcSettings(await freePort());
  logFile = path.join(dataDir, 'server.log');
  log = createWriteStream(logFile);
  server = spawn('npm', ['start'], {
    cwd: ROOT,
    detached: true,
    env: {
      ...process.env,
      PORT: String(port),
      // Any free port: parallel runs must not collide on the default 9464.
      METRICS_PORT: '0',
      DATA_DIR: dataDir,
      LOG_LEVEL: 'info',
      MAGIC_LINK_PER_IP_PER_HOUR: '1000',
      // The ingest tests fetch from a local server; other private addresses stay refused.
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
      // The OpenID callback and the dashboard redirect are under PUBLIC_URL: this server's own address.
      PUBLIC_URL: `http://127.0.0.1:${port}`,
      OIDC_ISSUER: oidc.issuer,
      OIDC_CLIENT_ID: oidc.clientId,
      OIDC_CLIENT_SECRET: oidc.clientSecret,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  server.stdout?.pipe(log, { end: false });
  server.stderr?.pipe(log, { end: false });
  const baseUrl = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + READY_TIMEOUT_MS;
  for (;;) {
    const ready = await fetch(`${baseUrl}/readyz`, { signal: AbortSignal.timeout(2_000) }).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ready) break;
    if (server.exitCode !== null || server.signalCode !== null || Date.now() > deadline) {
      const why =
        server.exitCode !== null
          ? `exited with code ${server.exitCode}`
          : `not ready after ${READY_TIMEOUT_MS / 1000} s`;
      await stopServer();
      const tail = readFileSync(logFile, 'utf8').split('\n').slice(-40).join('\n');
      throw new Error(`server ${why} (log: ${logFile}):\n${tail}`);
    }
    await new Promise((r) => setTimeout(r, 300));
  }
  project.provide('baseUrl', baseUrl);
  project.provide('outboxDir', path.join(dataDir, 'outbox'));
  project.provide('logPath', logFile);
  project.provide('oidc', oidc);
}

/** A loopback OpenID provider's settings for a test run (its client secret is random per run). */
export function testOidcSettings(port: number): OidcTestSettings {
  return {
    port,
    issuer: `http://127.0.0.1:${port}`,
    clientId: 'kg-e2e',
    clientSecret: randomBytes(24).toString('base64url'),
  };
}

export interface OidcTestSettings {
  port: number;
  issuer: string;
  clientId: string;
  clientSecret: string;
}

/** SIGTERM to the whole process group (npm, tsx, node), SIGKILL after 10 s. */
async function stopServer(): Promise<void> {
  const child = server;
  server = null;
  if (!child?.pid) return;
  const signal = (sig: NodeJS.Signals) => {
    try {
      process.kill(-child.pid!, sig);
    } catch {
      // the group is already gone
    }
  };
  if (child.exitCode === null && child.signalCode === null) {
    const exited = new Promise((r) => child.once('exit', r));
    signal('SIGTERM');
    const timer = setTimeout(() => signal('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  }
  signal('SIGKILL'); // stragglers of the group, if the leader exited first
  await new Promise<void>((r) => (log ? log.end(r) : r()));
}

export async function teardown() {
  await stopServer();
  // Last guard, independent of test-file order: nothing logged up to and including
  // shutdown may contain a secret the suite saw (zz-logs.test.ts reports the details).
  if (!logFile || !existsSync(logFile)) return removeDataDir();
  const text = readFileSync(logFile, 'utf8');
  const leaked = readFileSync(secretsFile, 'utf8')
    .split('\n')
    .filter((s) => s.length >= 16 && text.includes(s));
  if (leaked.length)
    throw new Error(`${leaked.length} secret(s) appear in ${logFile}, e.g. ${leaked[0]!.slice(0, 12)}…`);
  removeDataDir();
}

/**
 * The run's DATA_DIR (~120 MB of database, the server's keys, the secrets the suite saw) goes
 * once the run is over, unless KG_KEEP_TEST_DATA=1 (or a secret leaked: the log is the evidence).
 */
function removeDataDir() {
  if (!dataDir || process.env['KG_KEEP_TEST_DATA'] === '1') return;
  rmSync(dataDir, { recursive: true, force: true });
}

declare module 'vitest' {
  export interface ProvidedContext {
    baseUrl: string;
    outboxDir: string;
    logPath: string;
    secretsPath: string;
    /** The loopback OpenID provider the server is configured with (null against an external server). */
    oidc: OidcTestSettings | null;
  }
}
