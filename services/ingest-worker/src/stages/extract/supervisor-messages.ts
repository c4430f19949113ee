import type { ContentJob } from './content';
import type { SandboxOptions, SandboxOutcome } from './sandbox';
import type { Extracted } from './types';

/** What the supervisor is started with (its argument, JSON). */
export type SupervisorOptions = Omit<SandboxOptions, 'childEntry' | 'onOutcome'>;

/** What the service sends the sandbox's supervisor process. */
export type SupervisorRequest = { type: 'run'; id: number; job: ContentJob; timeoutMs: number } | { type: 'close' };

/** What the supervisor answers: ready once, then how each extraction ended and each job's result. */
export type SupervisorAnswer =
  | { type: 'ready' }
  | { type: 'outcome'; outcome: SandboxOutcome }
  | { type: 'done'; id: number; out: Extracted; models: string[] }
  | { type: 'failed'; id: number; message: string; retryable: boolean };
