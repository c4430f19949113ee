import { type Command } from 'commander';
import { decodeJwtClaims, ApiError } from '@kg/sdk';
import { examples, jsonOption, kg, type JsonOption } from '../context.ts';
import { Failure, EXIT, UsageError } from '../exit-codes.ts';
import { askLine } from '../input.ts';
import { magicLinkLogin } from '../login/magic-link.ts';
import { callJson } from '../raw.ts';
import { err, note, printFields, printJson } from '../output.ts';

interface Me {
  user_id: string;
  tenant_id: string;
  email: string | null;
  auth: 'bearer' | 'api_key';
}

export function authCommands(program: Command): void {
  examples(
    program
      .command('login')
      .summary('sign in (browser, or a magic link with --email)')
      .description(
        'Sign in and store the tokens for this server (SVC_API_URL). Opens the browser (OpenID Connect with PKCE and a loopback redirect); with --email, or when the server has no identity provider, a magic link is mailed and you paste the link or its token.',
      )
      .option('--email <address>', 'sign in with a magic link mailed to this address (works without a browser)')
      .option('--token <token>', 'with --email: the token or link from the mail, instead of pasting it')
      .option('--no-browser', 'print the sign-in address instead of opening a browser')
      .option('--timeout <seconds>', 'how long to wait for the browser sign-in', '300'),
    [
      'kg login',
      'kg login --no-browser            # on a machine whose browser you cannot reach: open the printed address elsewhere',
      'kg login --email ada@example.com # headless: paste the link from the mail',
      'SVC_API_URL=https://kg.example.com/api/v1 kg login',
    ],
  ).action(async (opts: { email?: string; token?: string; browser: boolean; timeout: string }) => {
    const client = kg();
    if (client.session.apiKey) {
      note('SVC_TOKEN is set: kg uses that API key and needs no login (unset SVC_TOKEN to sign in).');
      return;
    }
    if (opts.token && !opts.email) throw new UsageError('--token goes with --email');
    let email = opts.email;
    if (!email) {
      const providers = await callJson<{ oidc?: { enabled?: boolean } }>('GET', '/auth/providers', {
        auth: false,
      }).catch((e: unknown) => {
        if (e instanceof ApiError && e.status === 404) return { oidc: { enabled: false } };
        throw e;
      });
      if (providers.oidc?.enabled) {
        const timeoutMs = Number(opts.timeout) * 1000;
        if (!Number.isFinite(timeoutMs) || timeoutMs <= 0)
          throw new UsageError('--timeout must be a number of seconds');
        // Loaded on demand: `open` alone costs a quarter of a second at start-up.
        const { browserLogin } = await import('../login/browser.ts');
        await browserLogin({ openBrowser: opts.browser, timeoutMs });
        await reportSignedIn();
        return;
      }
      if (!process.stdin.isTTY)
        throw new UsageError(
          'This server has no identity provider configured: sign in with a magic link, `kg login --email you@example.com`.',
        );
      note('This server signs in by magic link.');
      email = await askLine('Email: ');
      if (!email) throw new UsageError('an email address is needed');
    }
    await magicLinkLogin(email, opts.token);
    await reportSignedIn();
  });

  examples(
    program.command('logout').description('Sign out: revoke the stored session on the server and forget it here.'),
    ['kg logout'],
  ).action(async () => {
    const { session } = kg();
    const login = await session.login();
    if (!login) {
      note(`Not signed in to ${session.baseUrl}.`);
      return;
    }
    try {
      await callJson('POST', '/auth/logout', { auth: false, body: { refresh_token: login.refresh_token } });
    } catch (e) {
      // An ended session, or a server without /auth/logout: forgetting it here is all there is to do.
      if (!(e instanceof ApiError) || (e.status !== 401 && e.status !== 404 && e.status !== 405)) throw e;
    }
    await session.forget();
    note(`Signed out of ${session.baseUrl}.`);
  });

  examples(
    jsonOption(
      program.command('whoami').description('Show who the credential in use (stored login or SVC_TOKEN) belongs to.'),
    ),
    ['kg whoami', 'kg whoami --json | jq -r .tenant_id'],
  ).action(async (opts: JsonOption) => {
    const { session, baseUrl } = kg();
    const me = await whoami();
    if (opts.json) return printJson({ ...me, base_url: baseUrl });
    printFields([
      ['email', me.email],
      ['user', me.user_id],
      ['tenant', me.tenant_id],
      ['signed in with', me.auth === 'api_key' ? 'API key (SVC_TOKEN)' : 'login'],
      ['server', baseUrl],
      ...((await session.kind()) === 'login' ? [['profile', session.store.file] as [string, unknown]] : []),
    ]);
  });
}

/** GET /auth/me; a server without it: the claims of the access token (never trusted, shown only). */
async function whoami(): Promise<Me> {
  try {
    return await callJson<Me>('GET', '/auth/me');
  } catch (e) {
    if (!(e instanceof ApiError) || e.status !== 404) throw e;
  }
  const { session } = kg();
  if (session.apiKey)
    throw new Failure('This server cannot say who an API key belongs to (no GET /auth/me).', EXIT.error);
  const login = await session.login();
  const claims = login ? decodeJwtClaims(login.access_token) : null;
  return {
    user_id: String(claims?.['sub'] ?? ''),
    tenant_id: String(claims?.['tnt'] ?? ''),
    email: login?.email ?? null,
    auth: 'bearer',
  };
}

async function reportSignedIn(): Promise<void> {
  const me = await whoami();
  const { session, baseUrl } = kg();
  const login = await session.login();
  if (login && me.email && login.email !== me.email) await session.store.write({ ...login, email: me.email });
  note(`${err.green('Signed in')} to ${baseUrl} as ${err.bold(me.email ?? me.user_id)}.`);
}
