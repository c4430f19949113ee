import { spawn, type ChildProcess } from 'node:child_process';
import { openSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../../test/e2e/support/ports';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** Resident memory of a process in MiB (Linux /proc), or NaN when it is gone. */
export function rssMiB(pid: number): number {
  try {
    const line = readFileSync(`/proc/${pid}/status`, 'utf8')
      .split('\n')
      .find((l) => l.startsWith('VmRSS:'));
    return Number(line?.split(/\s+/)[1]) / 1024;
  } catch {
    return Number.NaN;
  }
}

/** The pid of this user's process whose command line runs `entry` with `PORT=port` in its environment. */
export function pidOf(entry: string, port: number): number {
  for (const name of readdirSync('/proc').filter((n) => /^\d+$/.test(n))) {
    try {
      if (!readFileSync(`/proc/${name}/cmdline`, 'utf8').includes(entry)) continue;
      if (readFileSync(`/proc/${name}/environ`, 'utf8').split('\0').includes(`PORT=${port}`)) return Number(name);
    } catch {
      // a process that ended meanwhile, or another user's
    }
  }
  throw new Error(`no process runs ${entry} on port ${port}`);
}

export interface EmbeddedServer {
  baseUrl: string;
  outboxDir: string;
  pid: number;
  stop(): Promise<void>;
}

/**
 * Per-tenant limits (README "Limits") raised out of the way, for benches that measure speed
 * with one tenant asking as fast as it can (the noisy-neighbour bench keeps the defaults).
 */
export const NO_REQUEST_LIMITS: Record<string, string> = {
  SEARCH_RATE_LIMIT_PER_MINUTE: '100000000',
  SEARCH_RATE_LIMIT_PER_CREDENTIAL_PER_MINUTE: '100000000',
  CAPTURE_RATE_LIMIT_PER_MINUTE: '100000000',
  CAPTURE_RATE_LIMIT_PER_CREDENTIAL_PER_MINUTE: '100000000',
  UPLOAD_RATE_LIMIT_PER_MINUTE: '100000000',
  PARA_JOB_RATE_LIMIT_PER_MINUTE: '100000000',
};

/** Starts the embedded mode's entry (what `npm start` runs) on `dataDir`, as its own node process. */
export async function startEmbeddedAt(dataDir: string, env: Record<string, string> = {}): Promise<EmbeddedServer> {
  const port = await freePort();
  const out = openSync(path.join(dataDir, 'server.log'), 'a');
  // As `npm start` runs it (its memory settings too); bash and node24.sh exec: the PID is the server's.
  const child: ChildProcess = spawn('bash', ['scripts/start.sh'], {
    cwd: ROOT,
    stdio: ['ignore', out, out],
    env: {
      ...process.env,
      PORT: String(port),
      METRICS_PORT: '0',
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      ...env,
    },
  });
  const baseUrl = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    if (child.exitCode !== null) throw new Error(`embedded server exited with ${child.exitCode}`);
    const ok = await fetch(`${baseUrl}/readyz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    if (i > 1500) throw new Error('server did not become ready');
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    baseUrl,
    outboxDir: path.join(dataDir, 'outbox'),
    pid: child.pid!,
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** Signs `email` in through the mail outbox (a mail that arrived after the request); a bearer header value. */
export async function signIn(target: { baseUrl: string; outboxDir: string }, email: string): Promise<string> {
  const api = `${target.baseUrl}/api/v1`;
  const json = { 'content-type': 'application/json' };
  const list = () => {
    try {
      return readdirSync(target.outboxDir).filter((f) => f.endsWith('.json'));
    } catch {
      return [];
    }
  };
  const before = new Set(list());
  await fetch(`${api}/auth/magic-link`, { method: 'POST', headers: json, body: JSON.stringify({ email }) });
  for (let i = 0; i < 200; i++) {
    for (const file of list().filter((f) => !before.has(f))) {
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
