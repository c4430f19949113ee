// setup()/teardown() helpers for scripts that need several credentials of one tenant: from a
// signed-in person's access token (ACCESS_TOKEN, the `access_token` of
// POST /api/v1/auth/magic-link/verify) they create API keys, and revoke them at the end.
// API keys can only be created by a signed-in person (an API key gets 403), hence the token.
import http from 'k6/http';
import { fail } from 'k6';
import { API, REQUEST_TIMEOUT } from './target.js';

/** Params of the signed-in person (authorization: Bearer …); fails fast when ACCESS_TOKEN is missing or rejected. */
export function sessionParams() {
  const token = __ENV.ACCESS_TOKEN;
  if (!token) fail('set ACCESS_TOKEN to the access_token of a sign-in (scripts/tools/load-graph.sh does it)');
  const params = {
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    timeout: REQUEST_TIMEOUT,
  };
  const probe = http.get(`${API}/auth/api-keys`, Object.assign({}, params, { tags: { name: 'setup session' } }));
  if (probe.status !== 200) fail(`the access token was rejected: GET /api/v1/auth/api-keys answered ${probe.status}`);
  return params;
}

/** Creates `count` API keys named `<prefix>-<n>`; answers `[{ id, params }]`, params carrying `authorization: ApiKey …`. */
export function createKeys(session, prefix, count) {
  const keys = [];
  for (let n = 0; n < count; n++) {
    const res = http.post(`${API}/auth/api-keys`, JSON.stringify({ name: `${prefix}-${n}` }), {
      ...session,
      tags: { name: 'setup api key' },
    });
    if (res.status !== 201) fail(`setup: POST /auth/api-keys answered ${res.status}: ${res.body}`);
    keys.push({
      id: res.json('id'),
      params: {
        headers: { authorization: `ApiKey ${res.json('key')}`, 'content-type': 'application/json' },
        timeout: REQUEST_TIMEOUT,
      },
    });
  }
  return keys;
}

/** Revokes the keys createKeys made (teardown): a finished run leaves no live credential behind. */
export function revokeKeys(session, keys) {
  for (const { id } of keys) {
    const res = http.del(`${API}/auth/api-keys/${id}`, null, { ...session, tags: { name: 'teardown api key' } });
    if (res.status !== 204) console.warn(`teardown: revoking API key ${id} answered ${res.status}`);
  }
}
