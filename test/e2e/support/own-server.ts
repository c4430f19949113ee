import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from './ports';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

export interface OwnServer {
  /** `http://127.0.0.1:<port>/api/v1` */
  apiUrl: string;
  outboxDir: string;
  stop(): Promise<void>;
}

/**
 * A second embedded server (`npm start`) for a suite that needs settings the shared one
 * cannot have (a short access-token lifetime), on a free port with a fresh DATA_DIR.
 */
export async function startOwnServer(env: Record<string, string>): Promise<OwnServer> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'kg-own-'));
  const port = await freePort();
  const child = spawn('npm', ['start'], {
    cwd: ROOT,
    detached: true,
    env: { ...process.env, PORT: String(port), METRICS_PORT: '0', DATA_DIR: dataDir, LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let log = '';
  child.stderr!.on('data', (d: Buffer) => (log = (log + d.toString()).slice(-8000)));
  const base = `http://127.0.0.1:${port}`;
  // npm start builds what it serves first (the dashboard, when its sources changed): on a 2-core
  // machine that CI keeps busy this took more than 120 s once.
  const deadline = Date.now() + 170_000;
  for (;;) {
    const ready = await fetch(`${base}/readyz`, { signal: AbortSignal.timeout(2_000) }).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ready) break;
    if (child.exitCode !== null || Date.now() > deadline) {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // gone already
      }
      throw new Error(`own server did not start (exit ${child.exitCode}):\n${log}`);
    }
    await new Promise((r) => setTimeout(r, 300));
  }
  return {
    apiUrl: `${base}/api/v1`,
    outboxDir: path.join(dataDir, 'outbox'),
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      process.kill(-child.pid!, 'SIGTERM');
      const timer = setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** Requests a magic link on `server` and returns the token of the mail it sends. */
export async function magicLinkToken(server: OwnServer, email: string): Promise<string> {
  const res = await fetch(`${server.apiUrl}/auth/magic-link`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email }),
  });
  if (res.status !== 202) throw new Error(`magic link: ${res.status} ${await res.text()}`);
  const deadline = Date.now() + 10_000;
  for (;;) {
    const mails = existsSync(server.outboxDir)
      ? readdirSync(server.outboxDir)
          .filter((f) => f.endsWith('.json') && !f.startsWith('.'))
          .map((f) => JSON.parse(readFileSync(path.join(server.outboxDir, f), 'utf8')) as { to: string; token: string })
          .filter((m) => m.to === email.toLowerCase())
      : [];
    if (mails.length) return mails.at(-1)!.token;
    if (Date.now() > deadline) throw new Error(`no mail to ${email}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
