import { describe, expect, it } from 'vitest';
import { ApiError, AuthRequiredError, ConfigError, NetworkError } from '@kg/sdk';
import { EXIT, Failure, UsageError, exitCodeOf } from './exit-codes.ts';

describe('exit codes', () => {
  it.each([
    [new UsageError('x'), EXIT.usage],
    [new AuthRequiredError('x'), EXIT.auth],
    [new ConfigError('SVC_TOKEN holds an access token'), EXIT.auth],
    [new ConfigError('SVC_API_URL is not a URL'), EXIT.usage],
    [new ApiError({ status: 401 }), EXIT.auth],
    [new ApiError({ status: 403 }), EXIT.auth],
    [new ApiError({ status: 404 }), EXIT.notFound],
    [new ApiError({ status: 400 }), EXIT.error],
    [new ApiError({ status: 409 }), EXIT.error],
    [new NetworkError('down'), EXIT.error],
    [new Failure('x', EXIT.auth), EXIT.auth],
    [new Error('x'), EXIT.error],
  ])('%s → %i', (e, code) => {
    expect(exitCodeOf(e)).toBe(code);
  });
});
