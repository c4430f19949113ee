import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import open from 'open';
import type { TokenPair } from '@kg/sdk';
import { kg } from '../context.ts';
import { EXIT, Failure } from '../exit-codes.ts';
import { err, note } from '../output.ts';
import { callJson } from '../raw.ts';
import { pkcePair, randomState } from './pkce.ts';

const page = (title: string, text: string) =>
  `<!doctype html><meta charset="utf-8"><title>${title}</title>` +
  `<body style="font-family:system-ui;max-width:32rem;margin:4rem auto"><h1>${title}</h1><p>${text}</p></body>`;

/**
 * Native-app sign-in (RFC 8252): a one-shot HTTP listener on 127.0.0.1 at a free port
 * receives the redirect; PKCE (S256) binds the code to this process and `state` to this
 * attempt. The server exchanges the provider's code and hands back a one-time code of its
 * own, which POST /auth/oidc/token turns into our tokens.
 */
export async function browserLogin(opts: { openBrowser: boolean; timeoutMs: number }): Promise<void> {
  const { session, baseUrl } = kg();
  const { verifier, challenge } = pkcePair();
  const state = randomState();
  let settle!: (r: { code: string } | { error: string }) => void;
  const result = new Promise<{ code: string } | { error: string }>((resolve) => (settle = resolve));

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname !== '/callback') {
      res.writeHead(404).end();
      return;
    }
    if (url.searchParams.get('state') !== state) {
      res.writeHead(400, { 'content-type': 'text/html; charset=utf-8' });
      res.end(page('Sign-in refused', 'This answer does not belong to the sign-in kg started. Run kg login again.'));
      return;
    }
    const code = url.searchParams.get('code');
    const error = url.searchParams.get('error');
    res.writeHead(code ? 200 : 400, { 'content-type': 'text/html; charset=utf-8', connection: 'close' });
    res.end(
      code
        ? page('Signed in', 'You can close this tab and return to the terminal.')
        : page('Sign-in failed', `The identity provider answered: ${escapeHtml(error ?? 'no code')}.`),
    );
    settle(code ? { code } : { error: error ?? 'no code' });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const redirectUri = `http://127.0.0.1:${(server.address() as AddressInfo).port}/callback`;
  const start = new URL(`${baseUrl}/auth/oidc/start`);
  start.search = new URLSearchParams({
    redirect_uri: redirectUri,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state,
  }).toString();

  const timer = setTimeout(() => settle({ error: 'timed out waiting for the browser' }), opts.timeoutMs);
  try {
    note(`Sign in in your browser: ${start.href}`);
    if (opts.openBrowser) {
      await open(start.href).catch(() => note(err.yellow('Could not open a browser; open the address above.')));
    }
    const answer = await result;
    if ('error' in answer) throw new Failure(`Sign-in failed: ${answer.error}`, EXIT.auth);
    const pair = await callJson<TokenPair>('POST', '/auth/oidc/token', {
      auth: false,
      body: { code: answer.code, code_verifier: verifier, redirect_uri: redirectUri },
    });
    await session.saveLogin(pair);
  } finally {
    clearTimeout(timer);
    server.closeAllConnections();
    server.close();
  }
}

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
