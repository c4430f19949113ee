import { createHash } from 'node:crypto';
import type { Express } from 'express';
import { SIGN_IN_PATH } from '@kg/contracts';
import { problem, sendProblem } from '../http/problem';

/**
 * Reads the token from the fragment, removes it from the address bar and history at once,
 * and exchanges it with POST /auth/magic-link/verify. Nothing is stored: the dashboard's
 * own sign-in page replaces this one when it lands.
 */
const SCRIPT = `
const out = document.getElementById('status');
const token = new URLSearchParams(location.hash.slice(1)).get('token');
history.replaceState(null, '', location.pathname);
const show = (text) => { out.textContent = text; };
if (!token) {
  show('This sign-in link is incomplete. Request a new one.');
} else {
  fetch('/api/v1/auth/magic-link/verify', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ token }),
    credentials: 'omit',
    cache: 'no-store',
  }).then(
    (res) => show(res.ok
      ? 'You are signed in. You can close this page.'
      : 'This sign-in link is invalid, used or expired. Request a new one.'),
    () => show('The server could not be reached. Try the link again shortly.'),
  );
}
`;

const STYLE = 'body{font:16px/1.5 system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem}';

const hash = (s: string) => `'sha256-${createHash('sha256').update(s).digest('base64')}'`;

/** Only this page's own script and style may run; it may talk to its own origin only. */
export const SIGN_IN_CSP = [
  "default-src 'none'",
  `script-src ${hash(SCRIPT)}`,
  `style-src ${hash(STYLE)}`,
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const HTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer"><title>Sign in · Knowledge Graph</title><style>${STYLE}</style></head>
<body><h1>Sign in</h1><p id="status" role="status">Signing you in…</p>
<noscript><p>This page needs JavaScript to finish signing you in.</p></noscript>
<script>${SCRIPT}</script></body></html>
`;

/** The minimal page the sign-in mail opens, until the dashboard serves its own. */
export function mountSignInPage(app: Express): void {
  app.get(SIGN_IN_PATH, (_req, res) => {
    res
      .setHeader('Content-Security-Policy', SIGN_IN_CSP)
      .setHeader('Cache-Control', 'no-store')
      .setHeader('Referrer-Policy', 'no-referrer')
      .type('html')
      .send(HTML);
  });
  app.all(SIGN_IN_PATH, (req, res) => {
    res.setHeader('Allow', 'GET, HEAD');
    sendProblem(res, problem(405, 'Method not allowed', `${req.method} is not allowed here; allowed: GET, HEAD`));
  });
}
