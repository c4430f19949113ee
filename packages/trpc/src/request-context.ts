import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * The id of the public request being served (the gateway's `X-Request-Id`), carried to
 * every service call made while serving it: as the `x-request-id` header over HTTP and
 * as `requestId` in the context of in-process calls. Services log it with their errors.
 */
const storage = new AsyncLocalStorage<string>();

export const REQUEST_ID_HEADER = 'x-request-id';

/** A request id as received from a caller: kept when it looks like one, else dropped. */
export const cleanRequestId = (value: unknown): string | undefined =>
  typeof value === 'string' && /^[A-Za-z0-9._:-]{1,64}$/.test(value) ? value : undefined;

export const withRequestId = <T>(requestId: string | undefined, fn: () => T): T =>
  requestId ? storage.run(requestId, fn) : fn();

export const currentRequestId = (): string | undefined => storage.getStore();
