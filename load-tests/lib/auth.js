// setup() helpers: fail fast when the target is down or the API key is missing or rejected.
//
// k6 cannot read the sign-in mail (the outbox) at run time, so the tenant under load is
// given as an API key created beforehand (scripts/tools/load-smoke.sh does it):
//   POST /api/v1/auth/magic-link {email} -> token in the mail
//   POST /api/v1/auth/magic-link/verify {token} -> access_token
//   POST /api/v1/auth/api-keys {name} (authorization: Bearer <access_token>) -> key
import http from 'k6/http';
import { fail } from 'k6';
import { API, BASE_URL, REQUEST_TIMEOUT } from './target.js';

/** Stops the run before any load when the target is not ready. */
export function requireTarget() {
  const res = http.get(`${BASE_URL}/readyz`, { timeout: '5s', tags: { name: 'setup readyz' } });
  if (res.status !== 200) {
    fail(`target ${BASE_URL} is not ready: GET /readyz answered ${res.status || res.error || 'nothing'}`);
  }
}

/**
 * Request params carrying the API key of the tenant under load (`authorization: ApiKey …`).
 * Fails fast when API_KEY is missing or the target rejects it.
 */
export function apiKeyParams() {
  const key = __ENV.API_KEY;
  if (!key) fail('set API_KEY to an API key of the tenant under load (POST /api/v1/auth/api-keys)');
  const params = {
    headers: { authorization: `ApiKey ${key}`, 'content-type': 'application/json' },
    timeout: REQUEST_TIMEOUT,
  };
  const probe = http.get(`${API}/nodes?per_page=1`, Object.assign({}, params, { tags: { name: 'setup auth' } }));
  if (probe.status !== 200) fail(`the API key was rejected: GET /api/v1/nodes answered ${probe.status}`);
  return params;
}
