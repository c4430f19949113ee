import { statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, inject, it, vi } from 'vitest';
import {
  cliEmail,
  cliUser,
  freshConfig,
  kg,
  loginWithMagicLink,
  profilePath,
  readProfile,
  rememberProfile,
} from './support/cli';
import { remember } from './support/client';

// Every step is a kg process (a second or more on a loaded machine): more than the e2e default of 30 s.
vi.setConfig({ testTimeout: 180_000 });

const writeProfile = (config: string, patch: Record<string, unknown>) =>
  writeFileSync(profilePath(config), JSON.stringify({ ...readProfile(config), ...patch }));

describe('kg login / whoami / logout', () => {
  it('signs in with a pasted magic link, stores the tokens 0600 per base URL, and whoami says who', async () => {
    const config = freshConfig();
    const email = cliEmail('login');
    const run = await loginWithMagicLink(config, email);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain(`A sign-in link was mailed to ${email}`);
    expect(run.stderr).toContain(`Signed in to`);
    const file = profilePath(config);
    expect(path.basename(file)).toMatch(/^127\.0\.0\.1_\d+-[0-9a-f]{12}\.json$/);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(path.dirname(file)).mode & 0o777).toBe(0o700);
    expect(readProfile(config)).toMatchObject({ email, refresh_token: expect.stringMatching(/\./) });

    const me = await kg(['whoami', '--json'], { config });
    expect(me.code, me.stderr).toBe(0);
    expect(me.json()).toMatchObject({ email, auth: 'bearer', tenant_id: expect.stringMatching(/^tnt_/) });
    const human = await kg(['whoami'], { config });
    expect(human.stdout).toMatch(new RegExp(`email\\s+${email.replace(/[.]/g, '\\.')}`));
  });

  it('the token alone may be pasted too (a link with ?token= as well)', async () => {
    const config = freshConfig();
    const run = await loginWithMagicLink(config, cliEmail('paste'), (token) => token);
    expect(run.code, run.stderr).toBe(0);
    const config2 = freshConfig();
    const run2 = await loginWithMagicLink(config2, cliEmail('paste'), (token) => `http://x/sign-in?token=${token}`);
    expect(run2.code, run2.stderr).toBe(0);
  });

  it('a wrong token fails with exit 3 and the API problem, and stores nothing', async () => {
    const config = freshConfig();
    const run = await loginWithMagicLink(config, cliEmail('wrong'), () => 'not-the-token');
    expect(run.code).toBe(3);
    expect(run.stderr).toMatch(/Error: Unauthorized — .*sign-in token.*\(HTTP 401\)/);
    expect(run.stderr).not.toMatch(/\n\s+at /); // no stack trace
    expect((await kg(['whoami'], { config })).code).toBe(3);
  });

  it('without a login or SVC_TOKEN every command exits 3 and says how to sign in', async () => {
    const run = await kg(['nodes', 'list'], { config: freshConfig() });
    expect(run.code).toBe(3);
    expect(run.stderr).toMatch(
      /Not signed in to http:\/\/127\.0\.0\.1:\d+\/api\/v1\. Run `kg login` or set SVC_TOKEN\./,
    );
  });

  it('logout revokes the session on the server and forgets it here', async () => {
    const { config } = await cliUser('logout');
    const { refresh_token } = readProfile(config);
    const out = await kg(['logout'], { config });
    expect(out.code, out.stderr).toBe(0);
    expect(out.stderr).toContain('Signed out of');
    expect((await kg(['whoami'], { config })).code).toBe(3);
    // The refresh token no longer works on the server either.
    const res = await fetch(`${inject('baseUrl')}/api/v1/auth/refresh`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ refresh_token }),
    });
    expect(res.status).toBe(401);
  });
});

describe('automatic refresh (the real server rotates the tokens)', () => {
  it('refreshes before the access token expires, then the command runs', async () => {
    const { config } = await cliUser('expiry');
    const before = readProfile(config);
    writeProfile(config, { expires_at: Date.now() - 1000 }); // as if 15 minutes had passed
    const run = await kg(['nodes', 'list', '--json'], { config });
    expect(run.code, run.stderr).toBe(0);
    expect(run.json()).toMatchObject({ data: [], total: 0 });
    const after = readProfile(config);
    rememberProfile(config);
    expect(after.refresh_token).not.toBe(before.refresh_token);
    expect(after.access_token).not.toBe(before.access_token);
    expect(after.expires_at).toBeGreaterThan(Date.now() + 10 * 60_000);
  });

  it('after a 401 refreshes once and retries the request', async () => {
    const { config } = await cliUser('401');
    const before = readProfile(config);
    // An access token the server refuses (as after a key rotation), with an expiry still far off.
    const forged = before.access_token.slice(0, -4) + (before.access_token.endsWith('AAAA') ? 'BBBB' : 'AAAA');
    writeProfile(config, { access_token: forged });
    const run = await kg(['nodes', 'list', '--json'], { config });
    expect(run.code, run.stderr).toBe(0);
    const after = readProfile(config);
    rememberProfile(config);
    expect(after.refresh_token).not.toBe(before.refresh_token);
    expect(after.access_token).not.toBe(forged);
  });

  it('a session the server ended (refresh refused) exits 3 asking to log in again', async () => {
    const { config } = await cliUser('ended');
    writeProfile(config, {
      expires_at: 0,
      refresh_token: 'rt_00000000000000000000000000.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
    });
    const run = await kg(['nodes', 'list'], { config });
    expect(run.code).toBe(3);
    expect(run.stderr).toMatch(/session with .* has ended\. Run `kg login` again/);
  });

  it('several kg processes refreshing at the same moment all succeed and stay signed in', async () => {
    const { config } = await cliUser('concurrent');
    writeProfile(config, { expires_at: 0 });
    const runs = await Promise.all(Array.from({ length: 4 }, () => kg(['nodes', 'list', '--json'], { config })));
    for (const r of runs) expect(r.code, r.stderr).toBe(0);
    rememberProfile(config);
    // The family was not revoked as a reuse: the stored session still works and refreshes again.
    writeProfile(config, { expires_at: 0 });
    const again = await kg(['whoami', '--json'], { config });
    expect(again.code, again.stderr).toBe(0);
    rememberProfile(config);
  });
});

describe('SVC_TOKEN', () => {
  it('takes an API key: no login needed, and kg login says it is skipped', async () => {
    const { config } = await cliUser('key');
    const created = await kg(['keys', 'create', 'ci', '--json'], { config });
    expect(created.code, created.stderr).toBe(0);
    const key = created.json().key as string;
    remember(key);
    const empty = freshConfig();
    const me = await kg(['whoami', '--json'], { config: empty, env: { SVC_TOKEN: key } });
    expect(me.code, me.stderr).toBe(0);
    expect(me.json()).toMatchObject({ auth: 'api_key' });
    const login = await kg(['login'], { config: empty, env: { SVC_TOKEN: key } });
    expect(login.code).toBe(0);
    expect(login.stderr).toContain('SVC_TOKEN is set: kg uses that API key and needs no login');
    // Managing keys needs a person: with a key it is refused (403 → exit 3).
    const mint = await kg(['keys', 'create', 'other'], { config: empty, env: { SVC_TOKEN: key } });
    expect(mint.code).toBe(3);
    expect(mint.stderr).toMatch(/Forbidden.*\(HTTP 403\)/);
  });

  it('refuses a JWT with a clear message and exit 3', async () => {
    const { config } = await cliUser('jwt');
    const jwt = readProfile(config).access_token;
    const run = await kg(['nodes', 'list'], { config: freshConfig(), env: { SVC_TOKEN: jwt } });
    expect(run.code).toBe(3);
    expect(run.stderr).toContain('SVC_TOKEN holds an access token (a JWT); it takes an API key only.');
    expect(run.stderr).toContain('kg keys create');
    const garbage = await kg(['nodes', 'list'], { config: freshConfig(), env: { SVC_TOKEN: 'hunter2' } });
    expect(garbage.code).toBe(3);
    expect(garbage.stderr).toContain('SVC_TOKEN is not an API key');
  });

  it('a revoked key fails with exit 3', async () => {
    const { config } = await cliUser('revoked');
    const created = (await kg(['keys', 'create', 'short-lived', '--json'], { config })).json();
    remember(created.key);
    const list = await kg(['keys', 'list', '--json'], { config });
    expect(list.json().map((k: any) => k.id)).toContain(created.id);
    expect((await kg(['keys', 'list'], { config })).stdout).toMatch(
      /ID\s+NAME\s+PREFIX\s+CREATED\s+LAST USED\s+REVOKED/,
    );
    const revoke = await kg(['keys', 'revoke', created.id], { config });
    expect(revoke.code, revoke.stderr).toBe(0);
    const run = await kg(['nodes', 'list'], { config: freshConfig(), env: { SVC_TOKEN: created.key } });
    expect(run.code).toBe(3);
    expect((await kg(['keys', 'revoke', 'key_00000000000000000000000000'], { config })).code).toBe(4);
  });
});
