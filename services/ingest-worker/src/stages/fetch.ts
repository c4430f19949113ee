import http from 'node:http';
import https from 'node:https';
import { createAddressPolicy, EgressRefusal, pinnedLookup, resolvePublic, type Resolved } from '@kg/service-kit';
import { digest, permanent, transient, type StageResult } from './result';

export interface FetchOptions {
  /** Limit on resolving and connecting to one hop. */
  connectTimeoutMs: number;
  /** Limit on the whole fetch, every redirect included. */
  totalTimeoutMs: number;
  /** Largest body accepted, in bytes. */
  maxBytes: number;
  /** Redirects followed at most. */
  maxRedirects: number;
  /** Addresses or CIDRs allowed although private, loopback… (e.g. a local test server). */
  allowlist: readonly string[];
  userAgent?: string;
}

export interface Fetched {
  /** The URL of the last hop (after redirects). */
  url: string;
  status: number;
  /** The media type without its parameters, lower-cased; '' when the server sent none. */
  mime: string;
  charset: string | null;
  body: Buffer;
}

export const FETCH_MODEL = 'http-fetch@1';
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/**
 * The fetch stage: GET a URL with SSRF protection. Every hop's host is resolved first and
 * each resolved address checked against the policy; the connection then goes to that checked
 * address (the socket's lookup is pinned to it), so a DNS answer that changes between the
 * check and the connect (rebinding) cannot reach a refused address. Refusals, 4xx and
 * oversize bodies are permanent failures; timeouts, network errors and 5xx may be retried.
 */
export function createFetchStage(options: FetchOptions) {
  const policy = createAddressPolicy(options.allowlist);

  /**
   * Resolves a hop's host and checks every address. A refusal names the rule (the class of
   * address) and the host as the user gave it, or the redirect's number; never the resolved
   * address, so a capture's error cannot map internal names to internal addresses.
   */
  async function resolveChecked(host: string, redirect: number): Promise<Resolved> {
    try {
      return await resolvePublic(host, policy);
    } catch (err) {
      if (!(err instanceof EgressRefusal)) throw transient(`resolving ${host}: ${(err as NodeJS.ErrnoException).code}`);
      if (err.kind === 'not_found') throw permanent(`host ${err.host} not found`);
      const what = redirect ? `redirect ${redirect} leads to an address that` : `the address of ${err.host}`;
      throw permanent(`refused: ${what} is not public (${err.rule}); only public addresses are fetched`);
    }
  }

  function hop(url: URL, pinned: Resolved, deadline: AbortSignal) {
    return new Promise<{ status: number; location: string | null; mime: string; charset: string | null; body: Buffer }>(
      (resolve, reject) => {
        const agent = url.protocol === 'https:' ? https : http;
        const req = agent.request(url, {
          method: 'GET',
          lookup: pinnedLookup(pinned),
          signal: deadline,
          headers: {
            'user-agent': options.userAgent ?? 'knowledge-graph-ingest/1',
            accept: 'text/html,application/xhtml+xml,application/pdf,text/plain;q=0.9,*/*;q=0.5',
          },
        });
        const connectTimer = setTimeout(
          () => req.destroy(transient(`connect timeout after ${options.connectTimeoutMs} ms`)),
          options.connectTimeoutMs,
        );
        req.on('socket', (socket) => {
          if (!socket.connecting) clearTimeout(connectTimer);
          socket.once('connect', () => clearTimeout(connectTimer));
        });
        req.on('error', (err) => {
          clearTimeout(connectTimer);
          reject(
            err instanceof Error && err.name === 'StageError'
              ? err
              : deadline.aborted
                ? transient(`fetch timed out after ${options.totalTimeoutMs} ms`)
                : transient(`fetch failed: ${(err as NodeJS.ErrnoException).code ?? err.message}`),
          );
        });
        req.on('response', (res) => {
          clearTimeout(connectTimer);
          const status = res.statusCode ?? 0;
          const [type, ...params] = (res.headers['content-type'] ?? '').split(';');
          const charset = params.map((p) => p.trim().match(/^charset="?([^";]+)"?$/i)?.[1]).find(Boolean) ?? null;
          const meta = { status, location: res.headers.location ?? null, mime: type!.trim().toLowerCase(), charset };
          if (REDIRECTS.has(status)) {
            res.resume();
            return resolve({ ...meta, body: Buffer.alloc(0) });
          }
          const declared = Number(res.headers['content-length'] ?? NaN);
          if (declared > options.maxBytes) {
            req.destroy();
            return reject(permanent(`body of ${declared} bytes exceeds the ${options.maxBytes}-byte limit`));
          }
          const chunks: Buffer[] = [];
          let size = 0;
          res.on('data', (chunk: Buffer) => {
            size += chunk.length;
            if (size > options.maxBytes) {
              req.destroy(permanent(`body exceeds the ${options.maxBytes}-byte limit`));
              return;
            }
            chunks.push(chunk);
          });
          res.on('error', (err) => req.destroy(err));
          res.on('end', () => resolve({ ...meta, body: Buffer.concat(chunks) }));
        });
        req.end();
      },
    );
  }

  return async function fetchStage(input: {
    url: string;
    /** Awaited right before the first request is sent (the host's start time: politeness). */
    beforeRequest?: () => Promise<void>;
  }): Promise<StageResult<Fetched>> {
    const deadline = AbortSignal.timeout(options.totalTimeoutMs);
    let url = new URL(input.url);
    for (let redirects = 0; ; redirects++) {
      if (url.protocol !== 'http:' && url.protocol !== 'https:')
        throw permanent(`refused: only http and https URLs are fetched (${url.protocol})`);
      if (url.username || url.password) throw permanent('refused: URLs with credentials are not fetched');
      const pinned = await resolveChecked(url.hostname, redirects);
      if (redirects === 0) await input.beforeRequest?.();
      const res = await hop(url, pinned, deadline);
      if (REDIRECTS.has(res.status) && res.location) {
        if (redirects >= options.maxRedirects) throw permanent(`more than ${options.maxRedirects} redirects`);
        url = new URL(res.location, url);
        continue;
      }
      if (res.status >= 500) throw transient(`HTTP ${res.status} from ${url.host}`);
      if (res.status < 200 || res.status >= 300) throw permanent(`HTTP ${res.status} from ${url.host}`);
      return {
        output: { url: url.toString(), status: res.status, mime: res.mime, charset: res.charset, body: res.body },
        model: FETCH_MODEL,
        input_digest: digest(input.url),
      };
    }
  };
}
export type FetchStage = ReturnType<typeof createFetchStage>;
