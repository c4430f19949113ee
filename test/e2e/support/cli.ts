import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { inject } from 'vitest';
import { remember } from './client';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
/** `npx kg` after `npm ci`; the package's own bin when the link is missing (a work tree installed earlier). */
export const KG = existsSync(path.join(ROOT, 'node_modules/.bin/kg'))
  ? path.join(ROOT, 'node_modules/.bin/kg')
  : path.join(ROOT, 'clients/cli/bin/kg.js');

export interface KgRun {
  code: number;
  stdout: string;
  stderr: string;
  /** stdout parsed as JSON. */
  json: () => any;
}

export interface KgOptions {
  /** KG_CONFIG_DIR of this "user" (each test user has their own). */
  config?: string;
  env?: Record<string, string | undefined>;
  /** Written to stdin, which is then closed; a function may write later (it gets the child's stdin). */
  input?: string | ((stdin: NodeJS.WritableStream, stderr: () => string) => Promise<void>);
  timeoutMs?: number;
}

/** Runs the real `kg` binary as a subprocess against the test server; never throws on a non-zero exit. */
export function kg(args: string[], opts: KgOptions = {}): Promise<KgRun> {
  const env: Record<string, string> = {
    PATH: process.env['PATH'] ?? '',
    HOME: process.env['HOME'] ?? '',
    SVC_API_URL: `${inject('baseUrl')}/api/v1`,
    ...(opts.config ? { KG_CONFIG_DIR: opts.config } : {}),
  };
  for (const [k, v] of Object.entries(opts.env ?? {})) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  return new Promise((resolve, reject) => {
    const child = spawn(KG, args, { cwd: ROOT, env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({
        code: code ?? -1,
        stdout,
        stderr,
        json: () => {
          try {
            return JSON.parse(stdout);
          } catch {
            throw new Error(`kg ${args.join(' ')} printed no JSON (exit ${code}):\n${stdout}\n${stderr}`);
          }
        },
      });
    });
    if (typeof opts.input === 'function') {
      opts
        .input(child.stdin, () => stderr)
        .then(
          () => child.stdin.end(),
          (e: unknown) => {
            child.kill('SIGKILL');
            reject(e as Error);
          },
        );
    } else {
      child.stdin.end(opts.input ?? '');
    }
  });
}

/** A fresh config directory: a user of the CLI with nothing stored. */
export const freshConfig = () => mkdtempSync(path.join(tmpdir(), 'kg-cli-config-'));

function outboxFiles(): string[] {
  const dir = inject('outboxDir');
  return dir && existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.json') && !f.startsWith('.')) : [];
}

/** Waits for a new outbox mail to `email` (not among `before`) and returns its token. */
export async function nextMailToken(email: string, before: Set<string>, timeoutMs = 30_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    for (const f of outboxFiles().sort()) {
      if (before.has(f)) continue;
      const mail = JSON.parse(readFileSync(path.join(inject('outboxDir'), f), 'utf8')) as { to: string; token: string };
      if (mail.to === email.toLowerCase()) {
        remember(mail.token);
        return mail.token;
      }
    }
    if (Date.now() > deadline) throw new Error(`no mail to ${email} within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * `kg login --email` as a person does it: kg requests the link, the person pastes the link from
 * the mail on stdin. Resolves with the finished run (its stored profile is in `config`).
 */
export async function loginWithMagicLink(
  config: string,
  email: string,
  paste = (token: string) => `${inject('baseUrl')}/sign-in#token=${token}`,
): Promise<KgRun> {
  const before = new Set(outboxFiles());
  const run = await kg(['login', '--email', email], {
    config,
    input: async (stdin) => {
      const token = await nextMailToken(email, before);
      stdin.write(paste(token) + '\n');
    },
  });
  rememberProfile(config);
  return run;
}

/** The stored profile of `config` (one base URL in these tests). */
export function profilePath(config: string): string {
  const dir = path.join(config, 'profiles');
  const files = readdirSync(dir).filter((f) => f.endsWith('.json'));
  if (files.length !== 1) throw new Error(`expected one profile in ${dir}, found ${files.join(', ')}`);
  return path.join(dir, files[0]!);
}

export function readProfile(config: string): {
  access_token: string;
  refresh_token: string;
  expires_at: number;
  email?: string;
} {
  return JSON.parse(readFileSync(profilePath(config), 'utf8'));
}

/** Remembers the stored tokens as secrets, so the log test proves the server never logged them. */
export function rememberProfile(config: string): void {
  try {
    const p = readProfile(config);
    remember(p.access_token, p.refresh_token);
  } catch {
    // no profile (a failed login): nothing to remember
  }
}

let counter = 0;
export const cliEmail = (tag: string) => `cli-${tag}-${Date.now().toString(36)}-${(counter++).toString(36)}@e2e.test`;

/** A signed-in CLI user with a fresh tenant. */
export async function cliUser(tag: string): Promise<{ config: string; email: string }> {
  const config = freshConfig();
  const email = cliEmail(tag);
  const run = await loginWithMagicLink(config, email);
  if (run.code !== 0) throw new Error(`kg login failed (${run.code}):\n${run.stderr}`);
  return { config, email };
}
