import http from 'node:http';
import https from 'node:https';
import { createAddressPolicy, EgressRefusal, pinnedLookup, resolvePublic } from '@kg/service-kit';

export interface SendOptions {
  /** Addresses or CIDRs a delivery may reach although private, loopback… (WEBHOOK_ALLOWLIST). */
  allowlist: readonly string[];
  /** Limit on one attempt, connect to last byte (10 s by default). */
  timeoutMs: number;
}

export interface SendResult {
  outcome: 'succeeded' | 'failed';
  /** The receiver's status, when it answered. */
  httpStatus: number | null;
  latencyMs: number;
  /** Why it failed, in words for the delivery log: never an address, never a header. */
  error: string | null;
  /** 410 Gone: the receiver asks for no more deliveries (the endpoint is disabled). */
  gone: boolean;
}

/**
 * POSTs one signed delivery. The host is resolved and every address checked against the
 * address policy at each attempt, and the connection pinned to the checked address (DNS
 * rebinding cannot reach a refused one). Redirects are not followed: a 3xx is a failed attempt.
 * 2xx succeeds; anything else (timeouts, refusals, other statuses) fails and is retried.
 */
export function createSender(options: SendOptions) {
  const policy = createAddressPolicy(options.allowlist);

  return async function send(target: string, headers: Record<string, string>, body: string): Promise<SendResult> {
    const started = performance.now();
    const failed = (error: string, httpStatus: number | null = null): SendResult => ({
      outcome: 'failed',
      httpStatus,
      latencyMs: Math.round(performance.now() - started),
      error,
      gone: httpStatus === 410,
    });
    let url: URL;
    try {
      url = new URL(target);
    } catch {
      return failed('not a valid URL');
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return failed('only http and https URLs are called');
    const deadline = AbortSignal.timeout(options.timeoutMs);
    let pinned;
    try {
      pinned = await resolvePublic(url.hostname, policy);
    } catch (err) {
      if (err instanceof EgressRefusal)
        return failed(
          err.kind === 'not_found' ? err.message : `refused: ${err.message}; only public addresses are called`,
        );
      return failed(`resolving ${url.hostname}: ${(err as NodeJS.ErrnoException).code ?? 'failed'}`);
    }
    return new Promise<SendResult>((resolve) => {
      const req = (url.protocol === 'https:' ? https : http).request(url, {
        method: 'POST',
        agent: false,
        lookup: pinnedLookup(pinned),
        signal: deadline,
        headers: {
          ...headers,
          'content-type': 'application/json',
          'content-length': String(Buffer.byteLength(body)),
          'user-agent': 'knowledge-graph-webhooks/1',
        },
      });
      req.on('error', (err: NodeJS.ErrnoException) =>
        resolve(
          failed(
            deadline.aborted
              ? `no answer within ${options.timeoutMs} ms`
              : `connection failed: ${err.code ?? err.message}`,
          ),
        ),
      );
      req.on('response', (res) => {
        // The status decides; the answer's body is not read (a receiver cannot fill memory or
        // hold the attempt open by trickling it).
        const status = res.statusCode ?? 0;
        res.destroy();
        if (status >= 200 && status < 300)
          resolve({
            outcome: 'succeeded',
            httpStatus: status,
            latencyMs: Math.round(performance.now() - started),
            error: null,
            gone: false,
          });
        else if (status >= 300 && status < 400) resolve(failed(`HTTP ${status}: redirects are not followed`, status));
        else resolve(failed(`HTTP ${status}`, status));
      });
      req.end(body);
    });
  };
}
export type Sender = ReturnType<typeof createSender>;
