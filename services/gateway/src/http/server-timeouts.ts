import type { Server } from 'node:http';
import type { GatewayHttpConfig } from '../config';
import { uploadReadAllowanceMs } from './upload-deadline';

/**
 * How long an idle kept-alive connection stays open: above the 60 s idle timeout of common
 * load balancers and proxies (and far above the 4-5 s of Node's and browsers' client pools),
 * so the client, not the server, retires an idle connection. With Node's 5 s default, a
 * server could close a connection just as a client sent its next request on it, which the
 * client sees as ECONNRESET.
 */
export const KEEP_ALIVE_TIMEOUT_MS = 65_000;
/** Above the keep-alive timeout, as Node's documentation advises, so a reused connection's headers are never cut first. */
export const HEADERS_TIMEOUT_MS = 66_000;
/** Node's own default request timeout, kept as the floor. */
const NODE_REQUEST_TIMEOUT_MS = 300_000;

/**
 * Sets the timeouts of the gateway's public HTTP server (its own process and the embedded
 * host). The request timeout (the whole request, body included) stays above the longest
 * upload the read deadline allows (a file of UPLOAD_MAX_BYTES plus its form at the minimum
 * pace), so an upload is always ended by that deadline and its 408 problem, never by Node's
 * bare 408.
 */
export function applyServerTimeouts(
  server: Server,
  config: Pick<
    GatewayHttpConfig,
    'UPLOAD_MAX_BYTES' | 'UPLOAD_READ_TIMEOUT_SECONDS' | 'UPLOAD_READ_MIN_BYTES_PER_SECOND'
  >,
): void {
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  server.headersTimeout = HEADERS_TIMEOUT_MS;
  const longestUpload = uploadReadAllowanceMs(config.UPLOAD_MAX_BYTES + 1024 * 1024, {
    graceSeconds: config.UPLOAD_READ_TIMEOUT_SECONDS,
    minBytesPerSecond: config.UPLOAD_READ_MIN_BYTES_PER_SECOND,
  });
  server.requestTimeout = Math.max(NODE_REQUEST_TIMEOUT_MS, Math.ceil(longestUpload) + 30_000);
}
