import { spawn, type ChildProcess } from 'node:child_process';
import { permanent, transient } from '../result';
import type { ContentJob } from './content';
import { SANDBOX_START_TIMEOUT_MS, type Sandbox, type SandboxOptions } from './sandbox';
import { sandboxEntries } from './sandbox-entry';
import type { SupervisorAnswer, SupervisorOptions, SupervisorRequest } from './supervisor-messages';
import type { Extracted } from './types';

/** How long the supervisor may take to end its sandbox processes and itself on close. */
const CLOSE_GRACE_MS = 5000;

interface Supervisor {
  child: ChildProcess;
  pending: Map<number, { resolve: (r: { out: Extracted; models: string[] }) => void; reject: (e: Error) => void }>;
}

export interface SupervisedSandbox extends Sandbox {
  /** The supervisor's process id while one runs (null before the first job and after it died). */
  readonly supervisorPid: number | null;
}

/**
 * The extraction sandbox as the worker uses it: the sandbox processes (sandbox.ts) are started
 * by a supervisor process of their own (sandbox-supervisor.ts), started with the first job and
 * again with the next job after it died, so this process never forks itself per job (a fork of
 * the one-process server, ~1 GB resident, held its event loop ~100 ms, and every request with
 * it). Jobs, limits and outcomes are those of sandbox.ts: a limit passed fails the job
 * permanently naming it; a supervisor that dies fails the jobs it held retryably.
 */
export function createSupervisedSandbox(opts: Omit<SandboxOptions, 'childEntry'>): SupervisedSandbox {
  const { onOutcome, startTimeoutMs = SANDBOX_START_TIMEOUT_MS, ...rest } = opts;
  const options: SupervisorOptions = { ...rest, startTimeoutMs };
  let supervisor: Promise<Supervisor> | null = null;
  let pid: number | null = null;
  let nextId = 0;
  let closed = false;

  function start(): Promise<Supervisor> {
    const started = (async () => {
      const { supervisor: entry } = await sandboxEntries().catch((err: unknown) => {
        throw transient(`the extraction sandbox could not be built: ${(err as Error).message}`);
      });
      const child = spawn(process.execPath, [entry, JSON.stringify(options)], {
        stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
        serialization: 'advanced',
        // No secret of the service reaches the processes that handle hostile bytes.
        env: { MALLOC_ARENA_MAX: '2' },
      });
      const self: Supervisor = { child, pending: new Map() };
      let stderr = '';
      child.stderr!.setEncoding('utf8');
      child.stderr!.on('data', (s: string) => (stderr = (stderr + s).slice(-2048)));
      return new Promise<Supervisor>((resolve, reject) => {
        const timer = setTimeout(() => {
          child.kill('SIGKILL');
          reject(transient('the extraction sandbox supervisor did not start in time'));
        }, startTimeoutMs);
        child.on('message', (m: SupervisorAnswer) => {
          if (m.type === 'ready') {
            clearTimeout(timer);
            pid = child.pid ?? null;
            resolve(self);
          } else if (m.type === 'outcome') onOutcome?.(m.outcome);
          else {
            const p = self.pending.get(m.id);
            if (!p) return;
            self.pending.delete(m.id);
            if (m.type === 'done') p.resolve({ out: m.out, models: m.models });
            else p.reject(m.retryable ? transient(m.message) : permanent(m.message));
          }
        });
        child.on('error', (err) => {
          clearTimeout(timer);
          reject(transient(`the extraction sandbox supervisor could not start: ${err.message}`));
        });
        child.on('close', (code, signal) => {
          clearTimeout(timer);
          if (supervisor === started) [supervisor, pid] = [null, null];
          const why = closed
            ? 'the extraction sandbox was closed'
            : `the extraction sandbox supervisor stopped (${signal ?? `exit code ${code}`})${stderr ? `: ${stderr.trim().split('\n').at(-1)}` : ''}`;
          reject(transient(why));
          for (const p of self.pending.values()) p.reject(transient(why));
          self.pending.clear();
        });
      });
    })();
    started.catch(() => {
      if (supervisor === started) supervisor = null;
    });
    return started;
  }

  return {
    get supervisorPid() {
      return pid;
    },
    async run(job: ContentJob, timeoutMs: number) {
      if (closed) throw transient('the extraction sandbox is closed');
      const s = await (supervisor ??= start());
      const id = nextId++;
      return new Promise<{ out: Extracted; models: string[] }>((resolve, reject) => {
        s.pending.set(id, { resolve, reject });
        s.child.send({ type: 'run', id, job, timeoutMs } satisfies SupervisorRequest, (err) => {
          if (err && s.pending.delete(id))
            reject(transient(`the extraction sandbox supervisor is gone: ${err.message}`));
        });
      });
    },
    async close() {
      closed = true;
      const s = await supervisor?.catch(() => null);
      if (!s || s.child.exitCode !== null || s.child.signalCode !== null) return;
      const exited = new Promise((r) => s.child.once('close', r));
      s.child.send({ type: 'close' } satisfies SupervisorRequest, () => undefined);
      const force = setTimeout(() => s.child.kill('SIGKILL'), CLOSE_GRACE_MS);
      await exited;
      clearTimeout(force);
    },
  };
}
