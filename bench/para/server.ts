import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from '../../test/e2e/support/ports';
import { NO_REQUEST_LIMITS } from '../search/servers';

export interface Target {
  baseUrl: string;
  outboxDir: string;
  stop(): Promise<void>;
}

/** Starts the embedded mode (`npm start`) on a free port with a fresh DATA_DIR, as a user does. */
export async function startEmbedded(): Promise<Target> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'kg-bench-para-'));
  const port = await freePort();
  const child: ChildProcess = spawn('npm', ['start'], {
    detached: true,
    stdio: 'ignore',
    env: {
      ...process.env,
      PORT: String(port),
      // A free port for /metrics too: the default 9464 may be taken by another server.
      METRICS_PORT: '0',
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      // One tenant creating items, captures and searches as fast as it can (README "Limits").
      ...NO_REQUEST_LIMITS,
    },
  });
  const baseUrl = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    const ok = await fetch(`${baseUrl}/readyz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    if (i > 600) throw new Error('server did not become ready');
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    baseUrl,
    outboxDir: path.join(dataDir, 'outbox'),
    stop: async () => {
      if (child.pid) process.kill(-child.pid, 'SIGTERM');
      await new Promise((r) => setTimeout(r, 1000));
    },
  };
}

/** Signs a fresh email in through the mail outbox; answers a bearer header value. */
export async function signIn(target: Target, email: string): Promise<string> {
  const api = `${target.baseUrl}/api/v1`;
  const json = { 'content-type': 'application/json' };
  await fetch(`${api}/auth/magic-link`, { method: 'POST', headers: json, body: JSON.stringify({ email }) });
  for (let i = 0; i < 100; i++) {
    for (const file of readdirSync(target.outboxDir).filter((f) => f.endsWith('.json'))) {
      const mail = JSON.parse(readFileSync(path.join(target.outboxDir, file), 'utf8')) as { to: string; token: string };
      if (mail.to !== email) continue;
      const res = await fetch(`${api}/auth/magic-link/verify`, {
        method: 'POST',
        headers: json,
        body: JSON.stringify({ token: mail.token }),
      });
      return `Bearer ${((await res.json()) as { access_token: string }).access_token}`;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('no sign-in mail');
}
