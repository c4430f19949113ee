import { TRPCClientError } from '@trpc/client';
import type { InternalTokenSigner } from '@kg/tokens';
import { REQUEST_ID_HEADER, currentRequestId } from './request-context';
import { peerRequest, type PeerResponse } from './http-request';
import { isConnectFailure } from './replicas';

/**
 * A query's answer as the JSON text its service wrote (after checking it against the
 * contract's output schema): an edge that only forwards an answer sends this text as it is,
 * instead of parsing it and writing it again (a 500-node seed view is ~340 KB: parse, check
 * and write cost the gateway ~2.5 ms of CPU per request).
 */
export type JsonAnswer = string & { readonly __jsonAnswer: unique symbol };

/** tRPC's envelope around a non-batched answer (resolveResponse: `JSON.stringify({ result: { data } })`). */
const HEAD = '{"result":{"data":';
const TAIL = '}}';

/** The answer's own text out of tRPC's envelope: sliced when it has the expected form, else parsed and written again. */
export function unwrapAnswer(body: string): JsonAnswer {
  if (body.startsWith(HEAD) && body.endsWith(TAIL)) return body.slice(HEAD.length, -TAIL.length) as JsonAnswer;
  const parsed = JSON.parse(body) as { result?: { data?: unknown } };
  if (!parsed.result || !('data' in parsed.result)) throw new TRPCClientError('The service answered without a result');
  return JSON.stringify(parsed.result.data) as JsonAnswer;
}

const RETRIES = 2;
const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A query over tRPC's HTTP protocol (one call, not batched; the input as a POST body, as the
 * services accept), answered as JSON text. Failures are the TRPCClientErrors the tRPC link
 * raises: with the callee's problem data when it answered with an error, without data when it
 * could not be reached or answered garbage (those are retried twice, as the link does).
 */
export async function queryJson(
  opts: {
    url: string;
    service: string;
    signer: InternalTokenSigner;
    timeoutMs: number;
    /** Another replica follows this one: a connection refused is the caller's to send there, not retried here. */
    failOver?: boolean;
  },
  identity: Parameters<InternalTokenSigner['sign']>[1],
  path: string,
  input: unknown,
): Promise<JsonAnswer> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await once();
    } catch (err) {
      const transport = err instanceof TRPCClientError && !err.data;
      if (!transport || attempt > RETRIES || (opts.failOver && isConnectFailure(err))) throw err;
      await delay(100 * 2 ** attempt);
    }
  }

  async function once(): Promise<JsonAnswer> {
    const requestId = currentRequestId();
    let res: PeerResponse;
    try {
      res = await peerRequest(`${opts.url.replace(/\/$/, '')}/${path}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-internal-token': await opts.signer.sign(opts.service, identity),
          ...(requestId ? { [REQUEST_ID_HEADER]: requestId } : {}),
        },
        body: input === undefined ? undefined : JSON.stringify(input),
        timeoutMs: opts.timeoutMs,
      });
    } catch (cause) {
      throw new TRPCClientError(`The ${opts.service} service could not be reached`, { cause: cause as Error });
    }
    const body = res.text;
    if (res.ok) return unwrapAnswer(body);
    let error: unknown;
    try {
      error = (JSON.parse(body) as { error?: unknown }).error;
    } catch {
      error = undefined;
    }
    if (error && typeof error === 'object') throw TRPCClientError.from({ error } as never);
    throw new TRPCClientError(`The ${opts.service} service answered ${res.status}`);
  }
}
