import { spawn, type ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { permanent, transient, type StageError } from '../result';
import type { ContentJob, ContentSettings } from './content';
import type { Extracted } from './types';

/** What the parent sends to a sandbox process: one job. */
export interface SandboxRequest {
  job: ContentJob;
  settings: ContentSettings;
  outputMaxBytes: number;
}

/** What a sandbox process answers (once). `limit` names a limit it found passed itself. */
export type SandboxAnswer =
  | { ok: true; out: Extracted; models: string[] }
  | { ok: false; message: string; retryable: boolean }
  | { ok: false; limit: 'output' | 'memory' };

/** How a sandboxed extraction ended: its answer, a refusal of its own, or the limit that stopped it. */
export type SandboxOutcome = 'ok' | 'refused' | 'memory' | 'time' | 'cpu' | 'output' | 'crashed' | 'not_started';

export interface SandboxOptions {
  /** The sandbox process's entry, plain JavaScript (sandbox-entry.ts builds it). */
  childEntry: () => Promise<string>;
  /** Told how each extraction ended (the worker's metrics). */
  onOutcome?: (outcome: SandboxOutcome) => void;
  /** Sandbox processes at once; more jobs wait their turn. */
  processes: number;
  /** Resident memory of one sandbox process (watched every WATCH_MS), and its V8 heap. */
  memoryLimitMb: number;
  /**
   * Address space of one sandbox process, enforced by the kernel (RLIMIT_AS): the hard ceiling
   * should the watchdog be late. Node reserves far more address space than it uses (its code
   * range, heap reservations, thread stacks), so this is the memory limit plus ADDRESS_SPACE_HEADROOM_MB.
   */
  addressSpaceMb?: number;
  /** Bytes of markdown (and metadata) an extraction may produce. */
  outputMaxBytes: number;
  settings: ContentSettings;
  /** How long a process may take to start and ask for its job before it counts as not started (transient). */
  startTimeoutMs?: number;
}

export interface Sandbox {
  /** Runs one job in a fresh sandbox process; a limit passed fails with a permanent StageError naming it. */
  run(job: ContentJob, timeoutMs: number): Promise<{ out: Extracted; models: string[] }>;
  /** Stops every sandbox process (their jobs fail, retryably) and refuses new jobs. */
  close(): Promise<void>;
}

/** Measured on Node 24 (x86-64): a sandbox that has loaded pdf.js or tesseract's WebAssembly maps ~1.5-2.1 GiB it never touches. */
export const ADDRESS_SPACE_HEADROOM_MB = 4096;
const WATCH_MS = 50;
/** How long a sandbox process may take to start and ask for its job (a busy machine is slow). */
export const SANDBOX_START_TIMEOUT_MS = 30_000;
/** Seconds of CPU beyond the wall time limit before the kernel's RLIMIT_CPU stops the process (start-up costs some). */
const CPU_GRACE_S = 5;

const mib = (bytes: number) => `${Math.round(bytes / (1024 * 1024))} MiB`;
const duration = (ms: number) => (ms < 1000 ? `${ms} ms` : `${Math.ceil(ms / 1000)} s`);

/** Resident set size of a process, bytes, from /proc (null when it is gone). */
async function residentBytes(pid: number): Promise<number | null> {
  try {
    const status = await readFile(`/proc/${pid}/status`, 'utf8');
    const kb = /^VmRSS:\s+(\d+) kB/m.exec(status)?.[1];
    return kb ? Number(kb) * 1024 : null;
  } catch {
    return null;
  }
}

/** Why a sandbox process ended without answering, as the limit it passed when it passed one. */
export function exitReason(
  exit: { code: number | null; signal: NodeJS.Signals | null; stderr: string; killedFor: 'memory' | 'time' | null },
  limits: { memoryLimitMb: number; timeoutMs: number; cpuSeconds: number },
): StageError & { outcome: SandboxOutcome } {
  const named = (outcome: SandboxOutcome, message: string) => Object.assign(permanent(message), { outcome });
  const memory = named('memory', `memory exceeds the ${limits.memoryLimitMb} MiB limit`);
  if (exit.killedFor === 'memory') return memory;
  if (exit.killedFor === 'time') return named('time', `wall time exceeds the ${duration(limits.timeoutMs)} limit`);
  if (exit.signal === 'SIGXCPU') return named('cpu', `CPU time exceeds the ${limits.cpuSeconds} s limit`);
  // V8 aborts when its heap (--max-old-space-size) or the address space (RLIMIT_AS) runs out.
  if (
    exit.signal === 'SIGABRT' ||
    exit.code === 134 ||
    /out of memory|allocation failed|heap limit|cannot allocate|std::bad_alloc/i.test(exit.stderr)
  )
    return memory;
  if (exit.signal) return named('crashed', `the extractor crashed (${exit.signal})`);
  return named('crashed', `the extractor stopped (exit code ${exit.code})`);
}

/**
 * The extraction sandbox: every parser of untrusted bytes (PDF, DOCX, DOC, HTML, images and
 * OCR) runs in a child process of its own, one job per process, at most `processes` at once,
 * never in the service's heap. Each process runs under a hard address-space limit and a CPU
 * time limit set by the kernel (`ulimit -v` and `-t` of /bin/sh, then exec of node, started
 * from the bundled entry of sandbox-entry.ts), a V8 heap
 * limit, a watchdog that kills it once its resident memory passes the limit, a wall-time limit,
 * and a limit on the size of its answer; its environment holds no secret. A process that
 * passes a limit is killed and its job fails permanently naming the limit
 * (`memory exceeds the 256 MiB limit`): retrying the same bytes cannot help.
 */
export function createSandbox(
  opts: SandboxOptions,
): Sandbox & { readonly stats: { running: number; waiting: number } } {
  const addressSpaceMb = opts.addressSpaceMb ?? opts.memoryLimitMb + ADDRESS_SPACE_HEADROOM_MB;
  const startTimeoutMs = opts.startTimeoutMs ?? SANDBOX_START_TIMEOUT_MS;
  const waiting: (() => void)[] = [];
  const children = new Set<ChildProcess>();
  let running = 0;
  let closed = false;

  async function slot(): Promise<void> {
    if (running < opts.processes) {
      running++;
      return;
    }
    await new Promise<void>((resolve) => waiting.push(resolve));
  }
  function release() {
    const next = waiting.shift();
    if (next) next();
    else running--;
  }

  function runInChild(
    entry: string,
    job: ContentJob,
    timeoutMs: number,
  ): Promise<{ out: Extracted; models: string[] }> {
    const cpuSeconds = Math.ceil(timeoutMs / 1000) + CPU_GRACE_S;
    const limits = { memoryLimitMb: opts.memoryLimitMb, timeoutMs, cpuSeconds };
    // The kernel's limits first (soft, then hard: SIGXCPU at the soft CPU limit, SIGKILL 2 s later), then node.
    const script = `ulimit -S -v ${addressSpaceMb * 1024} && ulimit -H -v ${addressSpaceMb * 1024} && ulimit -S -t ${cpuSeconds} && ulimit -H -t ${cpuSeconds + 2} && ulimit -S -c 0 && exec "$@"`;
    const child = spawn(
      '/bin/sh',
      [
        '-c',
        script,
        'kg-extract',
        process.execPath,
        `--max-old-space-size=${opts.memoryLimitMb}`,
        '--disable-wasm-trap-handler',
        `--wasm-max-mem-pages=${opts.memoryLimitMb * 16}`,
        entry,
      ],
      {
        stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
        serialization: 'advanced',
        // No secret of the service reaches a process that parses hostile bytes.
        env: { MALLOC_ARENA_MAX: '2' },
      },
    );
    children.add(child);
    return new Promise((resolve, reject) => {
      let stderr = '';
      let killedFor: 'memory' | 'time' | null = null;
      let answered: SandboxAnswer | null = null;
      let started = false;
      const timers: NodeJS.Timeout[] = [];
      const kill = (why: 'memory' | 'time') => {
        killedFor ??= why;
        child.kill('SIGKILL');
      };
      child.stderr!.setEncoding('utf8');
      child.stderr!.on('data', (s: string) => {
        stderr = (stderr + s).slice(-4096);
      });
      timers.push(
        setTimeout(() => {
          if (!started) {
            child.kill('SIGKILL');
            reject(transient('the extraction sandbox did not start in time'));
          }
        }, startTimeoutMs),
      );
      let watching = false;
      const watch = setInterval(() => {
        if (watching || !child.pid) return;
        watching = true;
        void residentBytes(child.pid).then((rss) => {
          watching = false;
          if (rss !== null && rss > opts.memoryLimitMb * 1024 * 1024) kill('memory');
        });
      }, WATCH_MS);
      child.on('message', (m: SandboxAnswer | { ready: true }) => {
        if ('ready' in m) {
          started = true;
          timers.push(setTimeout(() => kill('time'), timeoutMs));
          const request: SandboxRequest = { job, settings: opts.settings, outputMaxBytes: opts.outputMaxBytes };
          child.send(request, (err) => {
            if (err) child.kill('SIGKILL'); // the close handler says why
          });
          return;
        }
        answered = m;
        clearInterval(watch);
        for (const t of timers) clearTimeout(t);
      });
      child.on('error', (err) => {
        clearInterval(watch);
        for (const t of timers) clearTimeout(t);
        children.delete(child);
        reject(transient(`the extraction sandbox could not start: ${err.message}`));
      });
      child.on('close', (code, signal) => {
        clearInterval(watch);
        for (const t of timers) clearTimeout(t);
        children.delete(child);
        const end = (outcome: SandboxOutcome, err: StageError | null) => {
          opts.onOutcome?.(outcome);
          if (err) reject(err);
        };
        if (!started && !closed) return end('not_started', transient('the extraction sandbox did not start'));
        if (closed && !answered) return reject(transient('the extraction sandbox was closed'));
        const a: SandboxAnswer | null = killedFor ? null : answered;
        if (!a) {
          const err = exitReason({ code, signal, stderr, killedFor }, limits);
          return end(err.outcome, err);
        }
        if (a.ok) {
          end('ok', null);
          return resolve({ out: a.out, models: a.models });
        }
        if ('limit' in a)
          return a.limit === 'output'
            ? end('output', permanent(`output exceeds the ${mib(opts.outputMaxBytes)} limit`))
            : end('memory', permanent(`memory exceeds the ${opts.memoryLimitMb} MiB limit`));
        end('refused', a.retryable ? transient(a.message) : permanent(a.message));
      });
    });
  }

  return {
    async run(job, timeoutMs) {
      if (closed) throw transient('the extraction sandbox is closed');
      await slot();
      try {
        if (closed) throw transient('the extraction sandbox is closed');
        const entry = await opts.childEntry().catch((err: unknown) => {
          throw transient(`the extraction sandbox could not be built: ${(err as Error).message}`);
        });
        return await runInChild(entry, job, timeoutMs);
      } finally {
        release();
      }
    },
    async close() {
      closed = true;
      const exits = [...children].map((c) => new Promise((r) => c.once('close', r)));
      for (const c of children) c.kill('SIGKILL');
      for (const w of waiting.splice(0)) {
        running++; // each waiter holds a slot it then releases
        w();
      }
      await Promise.all(exits);
    },
    get stats() {
      return { running, waiting: waiting.length };
    },
  };
}
