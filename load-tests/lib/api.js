import http from 'k6/http';
import { fail } from 'k6';

export const BASE_URL = (__ENV.BASE_URL ?? 'http://127.0.0.1:8080').replace(/\/$/, '');
export const API = `${BASE_URL}/api/v1`;

/** Fails fast when the target is down or no API key was given (create one with POST /api/v1/auth/api-keys). */
export function requireTarget() {
  const ready = http.get(`${BASE_URL}/readyz`);
  if (ready.status !== 200) fail(`target ${BASE_URL} is not ready (status ${ready.status})`);
  if (!__ENV.API_KEY) fail('set API_KEY to an API key of the tenant under load');
  return { headers: { authorization: `ApiKey ${__ENV.API_KEY}`, 'content-type': 'application/json' } };
}
