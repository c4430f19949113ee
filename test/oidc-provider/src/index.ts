// The OpenID provider of the tests: the auth service's unit tests, the e2e suite (both modes)
// and the dashboard's browser tests sign in through it. Test code only (type:test-lib).
import { createServer, type Server } from 'node:http';
import Provider from 'oidc-provider';

/** The person the next sign-in at the provider signs in as (no browser: the interaction answers at once). */
export interface TestAccount {
  sub: string;
  email?: string;
  email_verified?: boolean;
}

export interface TestOidcProvider {
  issuer: string;
  /** Who the next interaction signs in. */
  signInAs(account: TestAccount): void;
  close(): Promise<void>;
}

/**
 * A real OpenID provider (oidc-provider, OpenID Certified) on loopback for tests: one
 * confidential client, PKCE required, and an interaction that signs the chosen account in
 * and grants `openid email` without any page (login and consent in one step).
 */
export async function startTestOidcProvider(opts: {
  port: number;
  clientId: string;
  clientSecret: string;
  redirectUris: string[];
}): Promise<TestOidcProvider> {
  const issuer = `http://127.0.0.1:${opts.port}`;
  let account: TestAccount = { sub: 'nobody' };
  const accounts = new Map<string, TestAccount>();
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: opts.clientId,
        client_secret: opts.clientSecret,
        redirect_uris: opts.redirectUris,
        grant_types: ['authorization_code'],
        response_types: ['code'],
      },
    ],
    claims: { openid: ['sub'], email: ['email', 'email_verified'] },
    // Email claims in the ID token itself (the auth service also reads userinfo when they are not).
    conformIdTokenClaims: false,
    findAccount: (_ctx, id) => {
      const a = accounts.get(id);
      return a ? { accountId: id, claims: () => ({ ...a }) } : undefined;
    },
    features: { devInteractions: { enabled: false } },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    pkce: { required: () => true },
    cookies: { keys: ['kg-test-oidc-cookie-key-0123456789'] },
  });
  const callback = provider.callback();
  const server: Server = createServer((req, res) => {
    if (!req.url?.startsWith('/interaction/')) return void callback(req, res);
    void (async () => {
      const details = await provider.interactionDetails(req, res);
      const current = account;
      accounts.set(current.sub, current);
      const grant = new provider.Grant({ accountId: current.sub, clientId: String(details.params['client_id']) });
      grant.addOIDCScope('openid email');
      const grantId = await grant.save();
      await provider.interactionFinished(
        req,
        res,
        { login: { accountId: current.sub }, consent: { grantId } },
        { mergeWithLastSubmission: false },
      );
    })().catch((err: unknown) => {
      res.statusCode = 500;
      res.end(String(err));
    });
  });
  await new Promise<void>((resolve) => server.listen(opts.port, '127.0.0.1', () => resolve()));
  return {
    issuer,
    signInAs(a) {
      account = a;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A cookie jar by hand: name=value per cookie, sent back on every request (one host per test). */
export function cookieJar() {
  const cookies = new Map<string, string>();
  return {
    store(res: Response) {
      for (const c of res.headers.getSetCookie()) {
        const [pair] = c.split(';');
        const eq = pair!.indexOf('=');
        cookies.set(pair!.slice(0, eq).trim(), pair!.slice(eq + 1).trim());
      }
    },
    header: () => [...cookies].map(([k, v]) => `${k}=${v}`).join('; '),
  };
}

/**
 * Follows redirects from `url` (fetch with manual redirects and a cookie jar) until one
 * points at a URL `stop` accepts, which is returned without being fetched.
 */
export async function followRedirects(url: string, stop: (next: URL) => boolean, max = 12): Promise<URL> {
  const jar = cookieJar();
  let current = new URL(url);
  for (let i = 0; i < max; i++) {
    const res = await fetch(current, { redirect: 'manual', headers: { cookie: jar.header() } });
    jar.store(res);
    const location = res.headers.get('location');
    if (res.status < 300 || res.status >= 400 || !location)
      throw new Error(
        `${current.origin}${current.pathname} answered ${res.status}: ${(await res.text()).slice(0, 300)}`,
      );
    await res.arrayBuffer().catch(() => undefined);
    current = new URL(location, current);
    if (stop(current)) return current;
  }
  throw new Error(`more than ${max} redirects from ${url}`);
}
