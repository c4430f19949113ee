import { createHash } from 'node:crypto';

/** What every stage returns: its output, the model or method that made it, and a digest of its input. */
export interface StageResult<O> {
  output: O;
  /** The model id, or the name and version of the deterministic method. */
  model: string;
  /** sha256 (hex) of the stage's input, so a re-run on the same input is recognisable. */
  input_digest: string;
}

/** sha256 hex of a string or bytes; objects are digested through their JSON. */
export function digest(input: string | Uint8Array | object): string {
  const hash = createHash('sha256');
  if (typeof input === 'string' || input instanceof Uint8Array) hash.update(input);
  else hash.update(JSON.stringify(input));
  return hash.digest('hex');
}

/**
 * A stage failure. `retryable` false means trying again cannot help (a refused address, a
 * corrupt file, a zip bomb): the runner fails the capture at once instead of spending retries.
 */
export class StageError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
  ) {
    super(message);
    this.name = 'StageError';
  }
}

export const permanent = (message: string) => new StageError(message, false);
export const transient = (message: string) => new StageError(message, true);
