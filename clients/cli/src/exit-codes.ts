import { ApiError, AuthRequiredError, ConfigError, NetworkError } from '@kg/sdk';

/**
 * Stable exit codes (README "Command line"). `interrupted` (128 + SIGINT): Ctrl-C stopped a
 * command that was only following work the server goes on with.
 */
export const EXIT = { ok: 0, error: 1, usage: 2, auth: 3, notFound: 4, interrupted: 130 } as const;
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** A mistake in how the command was called (exit 2), found after parsing. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** A failure the command already explained; only its exit code is left to give. */
export class Failure extends Error {
  override name = 'Failure';
  readonly code: ExitCode;
  constructor(message: string, code: ExitCode = EXIT.error) {
    super(message);
    this.code = code;
  }
}

export function exitCodeOf(e: unknown): ExitCode {
  if (e instanceof UsageError) return EXIT.usage;
  if (e instanceof Failure) return e.code;
  if (e instanceof AuthRequiredError) return EXIT.auth;
  if (e instanceof ConfigError) return e.message.startsWith('SVC_TOKEN') ? EXIT.auth : EXIT.usage;
  if (e instanceof ApiError) {
    if (e.status === 401 || e.status === 403) return EXIT.auth;
    if (e.status === 404 || e.status === 410) return EXIT.notFound;
    return EXIT.error;
  }
  if (e instanceof NetworkError) return EXIT.error;
  return EXIT.error;
}
