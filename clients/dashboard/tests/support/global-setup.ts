import { spawn } from 'node:child_process';
import { createWriteStream, mkdtempSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startTestOidcProvider } from '@kg/test-oidc-provider';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');
const READY_TIMEOUT_MS = 120_000;

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });

/**
 * Starts the embedded server (what `npm start` runs, the dashboard already built by
 * test:browser's pre-step) on a free port with a fresh DATA_DIR; the tests read
 * KG_BASE_URL and KG_OUTBOX_DIR. Returns the teardown.
 */
export default async function globalSetup() {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'kg-browser-'));
  const port = await freePort();
  // A real OpenID provider on loopback: the dashboard's "Continue with …" signs this person in.
  const oidc = await startTestOidcProvider({
    port: await freePort(),
    clientId: 'kg-dashboard-test',
    clientSecret: 'kg-dashboard-test-secret-0123456789',
    redirectUris: [`http://127.0.0.1:${port}/api/v1/auth/oidc/callback`],
  });
  oidc.signInAs({ sub: 'oidc-person-1', email: 'oidc-person@example.com', email_verified: true });
  const logFile = path.join(dataDir, 'server.log');
  const log = createWriteStream(logFile);
  const server = spawn('bash', ['scripts/start.sh'], {
    cwd: ROOT,
    detached: true,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      METRICS_PORT: '0',
      DATA_DIR: dataDir,
      PUBLIC_URL: `http://127.0.0.1:${port}`,
      MAGIC_LINK_PER_IP_PER_HOUR: '1000',
      MAGIC_LINK_PER_EMAIL_PER_HOUR: '100',
      // The extension's tests save pages a local server serves; other private addresses stay refused.
      FETCH_ALLOWLIST: '127.0.0.1',
      // The webhooks test's receiver listens on loopback too.
      WEBHOOK_ALLOWLIST: '127.0.0.1',
      LOG_LEVEL: 'info',
      OIDC_ISSUER: oidc.issuer,
      OIDC_CLIENT_ID: 'kg-dashboard-test',
      OIDC_CLIENT_SECRET: 'kg-dashboard-test-secret-0123456789',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  server.stdout.pipe(log, { end: false });
  server.stderr.pipe(log, { end: false });
  const baseUrl = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + READY_TIMEOUT_MS;
  for (;;) {
    const ready = await fetch(`${baseUrl}/readyz`, { signal: AbortSignal.timeout(2_000) }).then(
      (r) => r.ok,
      () => false,
    );
    if (ready) break;
    if (server.exitCode !== null || Date.now() > deadline) {
      await oidc.close();
      const tail = readFileSync(logFile, 'utf8').split('\n').slice(-40).join('\n');
      throw new Error(`server not ready (log ${logFile}):\n${tail}`);
    }
    await new Promise((r) => setTimeout(r, 300));
  }
  process.env['KG_BASE_URL'] = baseUrl;
  process.env['KG_OUTBOX_DIR'] = path.join(dataDir, 'outbox');
  process.env['KG_OIDC_ISSUER'] = oidc.issuer;
  return async () => {
    await oidc.close();
    try {
      process.kill(-server.pid!, 'SIGTERM');
    } catch {
      return;
    }
    const exited = new Promise((r) => server.once('exit', r));
    const timer = setTimeout(() => {
      try {
        process.kill(-server.pid!, 'SIGKILL');
      } catch {
        /* already gone */
      }
    }, 10_000);
    await exited;
    clearTimeout(timer);
  };
}
