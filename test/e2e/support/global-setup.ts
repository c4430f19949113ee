import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';
import { freePort } from './ports';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
let server: ChildProcess | null = null;

/**
 * Starts the real server exactly as a user does (`npm start`) on a free port with a
 * fresh DATA_DIR, unless E2E_BASE_URL points at one already running.
 */
export async function setup(project: TestProject) {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'kg-e2e-'));
  const secretsPath = path.join(dataDir, 'secrets-seen.txt');
  writeFileSync(secretsPath, '');
  project.provide('secretsPath', secretsPath);
  if (process.env['E2E_BASE_URL']) {
    project.provide('baseUrl', process.env['E2E_BASE_URL']);
    project.provide('outboxDir', process.env['E2E_OUTBOX_DIR'] ?? '');
    project.provide('logPath', process.env['E2E_LOG_PATH'] ?? '');
    return;
  }
  const port = await freePort();
  const logPath = path.join(dataDir, 'server.log');
  const log = createWriteStream(logPath);
  server = spawn('npm', ['start'], {
    cwd: ROOT,
    detached: true,
    env: {
      ...process.env,
      PORT: String(port),
      DATA_DIR: dataDir,
      LOG_LEVEL: 'info',
      MAGIC_LINK_PER_IP_PER_HOUR: '1000',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  server.stdout?.pipe(log);
  server.stderr?.pipe(log);
  const baseUrl = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 90_000;
  for (;;) {
    const ok = await fetch(`${baseUrl}/readyz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    if (server.exitCode !== null || Date.now() > deadline) {
      const tail = readFileSync(logPath, 'utf8').split('\n').slice(-30).join('\n');
      throw new Error(`server did not become ready:\n${tail}`);
    }
    await new Promise((r) => setTimeout(r, 300));
  }
  project.provide('baseUrl', baseUrl);
  project.provide('outboxDir', path.join(dataDir, 'outbox'));
  project.provide('logPath', logPath);
}

export async function teardown() {
  if (!server?.pid) return;
  const exited = new Promise((r) => server!.once('exit', r));
  process.kill(-server.pid, 'SIGTERM');
  const timer = setTimeout(() => process.kill(-server!.pid!, 'SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

declare module 'vitest' {
  export interface ProvidedContext {
    baseUrl: string;
    outboxDir: string;
    logPath: string;
    secretsPath: string;
  }
}
