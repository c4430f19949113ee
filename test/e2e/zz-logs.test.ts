import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, inject, it } from 'vitest';
import { api, expectUnauthorized, newTenant, remember, requestMagicLink, uniqueEmail } from './support/client';

// Named to run last; it also makes its own secrets first, so it proves something
// whatever order the files run in (global teardown repeats the check after shutdown).
const logPath = inject('logPath');

describe('server logs', () => {
  // Skipped only outside CI when the suite targets an external server without E2E_LOG_PATH; in CI a missing log fails.
  it.skipIf(!logPath && !process.env['CI'])(
    'contain none of the tokens, keys or magic-link tokens the suite used',
    async () => {
      // Exercise every credential path once more, successful and failed.
      const s = await newTenant('logs');
      const refreshed = await api('POST', '/auth/refresh', { body: { refresh_token: s.refresh_token } });
      expect(refreshed.status).toBe(200);
      const key = await api<{ id: string; key: string }>('POST', '/auth/api-keys', {
        auth: s.bearer,
        body: { name: 'log probe' },
      });
      expect(key.status).toBe(201);
      expect((await api('GET', '/nodes', { auth: `ApiKey ${key.body.key}` })).status).toBe(200);
      const wrongSecret = `${key.body.id}.${'W'.repeat(43)}`;
      remember(wrongSecret);
      expectUnauthorized(await api('GET', '/nodes', { auth: `ApiKey ${wrongSecret}` }));
      expectUnauthorized(await api('GET', '/nodes', { auth: `Bearer ${s.access_token}x` }));
      const { mail } = await requestMagicLink(uniqueEmail('logs-unused'));
      expect(mail.token.length).toBeGreaterThanOrEqual(16);

      // The mailed link opens the sign-in page with the token in the fragment, never in a query string.
      const link = new URL(/https?:\/\/\S+/.exec(mail.text)![0]);
      expect(link.pathname).toBe('/sign-in');
      expect(link.search).toBe('');
      expect(link.hash).toBe(`#token=${mail.token}`);
      const page = await fetch(`${inject('baseUrl')}${link.pathname}${link.hash}`); // fetch never sends the fragment
      expect(page.status).toBe(200);
      // The dashboard's sign-in route: its own bundle only, no inline script.
      expect(page.headers.get('content-security-policy')).toMatch(/script-src 'self'(;|$)/);
      // An attacker-in-logs check: the token pasted into query strings, on auth routes and the page.
      const { mail: pasted } = await requestMagicLink(uniqueEmail('logs-pasted'));
      await fetch(`${inject('baseUrl')}/sign-in?token=${pasted.token}`);
      await api('POST', `/auth/magic-link/verify?token=${pasted.token}`, { body: { token: 'x' } });
      await api('GET', `/auth/magic-link/verify?token=${pasted.token}`);
      await api('POST', `/auth/refresh?refresh_token=${s.refresh_token}`, { body: { refresh_token: 'x' } });
      await new Promise((r) => setTimeout(r, 300)); // let the logger flush

      expect(existsSync(logPath)).toBe(true);
      const log = readFileSync(logPath, 'utf8');
      expect(log).toContain('/api/v1/auth/refresh'); // the requests were logged at info level
      const secrets = [...new Set(readFileSync(inject('secretsPath'), 'utf8').split('\n'))].filter(
        (x) => x.length >= 16,
      );
      expect(secrets).toEqual(
        expect.arrayContaining([s.access_token, s.refresh_token, key.body.key, mail.token, pasted.token]),
      );
      expect(log).toContain('"path":"/api/v1/auth/magic-link/verify"'); // logged, without its query string
      const leaked = secrets.filter((x) => log.includes(x));
      expect(leaked).toEqual([]);
    },
  );
});
