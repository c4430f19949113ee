// Where the load goes: BASE_URL from the environment (default the local gateway).
// Load goes to loopback only unless ALLOW_REMOTE_TARGET=1 says otherwise on purpose.
export const BASE_URL = (__ENV.BASE_URL || 'http://127.0.0.1:8080').replace(/\/+$/, '');
export const API = `${BASE_URL}/api/v1`;

const host = BASE_URL.replace(/^https?:\/\//, '')
  .replace(/[/:].*$/, '')
  .replace(/^\[|\]$/g, '');
const loopback =
  host === 'localhost' || /^127\.\d+\.\d+\.\d+$/.test(host) || host === '::1' || BASE_URL.includes('[::1]');
if (!loopback && __ENV.ALLOW_REMOTE_TARGET !== '1') {
  throw new Error(`BASE_URL ${BASE_URL} is not a loopback address; set ALLOW_REMOTE_TARGET=1 to load a remote target`);
}

/** Per-request timeout: no request waits longer, so every iteration is bounded in time. */
export const REQUEST_TIMEOUT = __ENV.REQUEST_TIMEOUT || '10s';

/** Think time between iterations, in seconds (quickpizza sleeps 1 s; the smoke run less). */
export const THINK_TIME = Number(__ENV.THINK_TIME || 0.5);
