import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { remember } from './support/client';
import { freshConfig, kg, readProfile, rememberProfile } from './support/cli';
import { followRedirects, startTestOidcProvider, type TestOidcProvider } from '@kg/test-oidc-provider';

// Every step is a kg process (a second or more on a loaded machine): more than the e2e default of 30 s.
vi.setConfig({ testTimeout: 180_000 });

/**
 * `kg login` in the browser, end to end: the real server configured with the loopback OpenID
 * provider (global setup), the CLI's loopback listener, PKCE and state; the test plays the
 * browser, following the redirects the printed address starts.
 */
const base = inject('baseUrl');
const settings = inject('oidc');
let provider: TestOidcProvider;

beforeAll(async () => {
  if (!settings) throw new Error('this suite needs the loopback OpenID provider settings from global setup');
  remember(settings.clientSecret);
  provider = await startTestOidcProvider({ ...settings, redirectUris: [`${base}/api/v1/auth/oidc/callback`] });
});
afterAll(() => provider?.close());

/** Waits until kg has printed the sign-in address and returns it. */
async function printedAddress(stderr: () => string): Promise<string> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const m = /Sign in in your browser: (\S+)/.exec(stderr());
    if (m) return m[1]!;
    if (Date.now() > deadline) throw new Error(`kg printed no address:\n${stderr()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The browser: start → provider → our callback → the CLI's loopback redirect (returned, not fetched). */
const toLoopback = (address: string) =>
  followRedirects(address, (u) => u.hostname === '127.0.0.1' && u.pathname === '/callback' && !u.href.startsWith(base));

describe('kg login (OpenID Connect, loopback redirect, PKCE)', () => {
  it('signs in through the browser and stores the tokens; a forged state is refused on the way', async () => {
    const config = freshConfig();
    const email = `cli-oidc-${Date.now().toString(36)}@e2e.test`;
    provider.signInAs({ sub: `cli-${Date.now()}`, email, email_verified: true });
    let forged: Response | undefined;
    let page = '';
    const run = await kg(['login', '--no-browser'], {
      config,
      input: async (_stdin, stderr) => {
        const address = await printedAddress(stderr);
        const start = new URL(address);
        expect(start.pathname).toBe('/api/v1/auth/oidc/start');
        expect(start.searchParams.get('code_challenge_method')).toBe('S256');
        expect(start.searchParams.get('redirect_uri')).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
        const back = await toLoopback(address);
        remember(back.searchParams.get('code') ?? undefined);
        const wrong = new URL(back);
        wrong.searchParams.set('state', 'not-the-state');
        forged = await fetch(wrong);
        const res = await fetch(back);
        page = await res.text();
      },
    });
    expect(run.code, run.stderr).toBe(0);
    expect(forged?.status).toBe(400);
    expect(page).toContain('Signed in');
    expect(run.stderr).toContain(`as ${email}`);
    rememberProfile(config);
    expect(readProfile(config).refresh_token).toMatch(/\./);
    const me = await kg(['whoami', '--json'], { config });
    expect(me.json()).toMatchObject({ email, auth: 'bearer' });
  });

  it('an error from the provider ends the login with exit 3 and stores nothing', async () => {
    const config = freshConfig();
    const run = await kg(['login', '--no-browser'], {
      config,
      input: async (_stdin, stderr) => {
        const address = await printedAddress(stderr);
        const start = new URL(address);
        const loopback = new URL(start.searchParams.get('redirect_uri')!);
        loopback.searchParams.set('error', 'access_denied');
        loopback.searchParams.set('state', start.searchParams.get('state')!);
        await fetch(loopback);
      },
    });
    expect(run.code).toBe(3);
    expect(run.stderr).toContain('Sign-in failed: access_denied');
    expect((await kg(['whoami'], { config })).code).toBe(3);
  });
});
