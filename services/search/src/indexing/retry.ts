import { EmbeddingsError } from '@kg/embeddings';

/**
 * What the indexer does when embedding a node fails (docs/API.md "The search index"):
 * - the node waits before its next attempt, 30 s after the first failure and four times
 *   longer after each next one (30 s, 2 min, 8 min, 32 min), at most one hour;
 * - after EMBED_MAX_FAILURES failures that say the text itself is the problem (an error that
 *   is not retryable: a provider's 4xx, a model error), no more attempts until the node changes
 *   (a new version) or the model does;
 * - a retryable failure (timeout, 429, 5xx: the provider, not the text) never ends the
 *   attempts, it only backs off, and ends the pass (the next nodes would fail alike).
 */
export const EMBED_MAX_FAILURES = 5;
const FIRST_DELAY_MS = 30_000;
const MAX_DELAY_MS = 3600_000;

export interface FailurePlan {
  /** Failed attempts of this version with this model, this one included (retryable ones count up to the bound − 1). */
  failures: number;
  /** When the next attempt may run; null: none until the node or the model changes. */
  retryAt: Date | null;
  /** The provider is unavailable: stop this pass. */
  stopPass: boolean;
}

export function isRetryable(err: unknown): boolean {
  return err instanceof EmbeddingsError && err.retryable;
}

/** The plan after a node's embedding failed for the `previous + 1`th time. */
export function planAfterFailure(previous: number, err: unknown, now: number): FailurePlan {
  const retryable = isRetryable(err);
  const delay = Math.min(FIRST_DELAY_MS * 4 ** previous, MAX_DELAY_MS);
  // A retryable failure is counted short of the bound, so it never ends the attempts.
  const failures = retryable ? Math.min(previous + 1, EMBED_MAX_FAILURES - 1) : previous + 1;
  const exhausted = failures >= EMBED_MAX_FAILURES;
  return { failures, retryAt: exhausted ? null : new Date(now + delay), stopPass: retryable };
}

/** What a log line may say of an error: an EmbeddingsError's message never holds a text; others only by name. */
export function describeError(err: unknown): string {
  if (err instanceof EmbeddingsError) return err.message;
  return err instanceof Error ? err.name : typeof err;
}
