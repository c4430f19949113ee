import { useEffect, useState, type FormEvent } from 'react';
import { ErrorNote } from '../components/ui';
import { useAction } from '../hooks';
import { api, unwrap } from '../api/client';
import { verifyMagicLink, exchangeOidcCode, SignInError } from '../api/session';
import { navigate } from '../router';
import { startOidc, takeOidcAttempt, useProviders } from '../api/oidc';

/** Request a magic link, or continue with the OpenID provider when the server has one. */
export function SignInForm() {
  const [email, setEmail] = useState('');
  const [sentTo, setSentTo] = useState<string | null>(null);
  const { busy, error, run } = useAction();
  const providers = useProviders();
  const submit = (e: FormEvent) => {
    e.preventDefault();
    void run(async () => {
      unwrap(await api.POST('/auth/magic-link', { body: { email } }));
      setSentTo(email);
    });
  };
  return (
    <main className="signin" id="main">
      <h1>Sign in to Knowledge Graph</h1>
      {sentTo ? (
        <div role="status">
          <h2>Check your mail</h2>
          <p>
            We sent a sign-in link to <strong>{sentTo}</strong>. Open it in this browser; it works once and for 15
            minutes.
          </p>
          <button type="button" onClick={() => setSentTo(null)}>
            Use another address
          </button>
        </div>
      ) : (
        <form onSubmit={submit}>
          <label htmlFor="email">Email address</label>
          <input
            id="email"
            type="email"
            autoComplete="email"
            required
            value={email}
            onChange={(e) => setEmail(e.target.value)}
          />
          <button type="submit" className="primary" disabled={busy}>
            {busy ? 'Sending…' : 'Email me a sign-in link'}
          </button>
          <ErrorNote error={error} />
        </form>
      )}
      {providers?.oidc.enabled && (
        <p>
          <button type="button" onClick={() => void startOidc()}>
            Continue with {providers.oidc.issuer ? new URL(providers.oidc.issuer).host : 'single sign-on'}
          </button>
        </p>
      )}
    </main>
  );
}

function Landing({ exchange }: { exchange: () => Promise<void> }) {
  const [message, setMessage] = useState('Signing you in…');
  useEffect(() => {
    exchange().then(
      () => navigate('/', { replace: true }),
      (e: Error) =>
        setMessage(
          e instanceof SignInError && e.status < 500
            ? `This sign-in link is invalid, used or expired (${e.message}). Request a new one.`
            : `Signing in failed: ${e.message}`,
        ),
    );
    // Runs once: a token or code works only once.
  }, []);
  return (
    <main className="signin" id="main">
      <h1>Sign in</h1>
      <p role="status">{message}</p>
      <a href="/">Back to sign-in</a>
    </main>
  );
}

/** GET /sign-in#token=…: the mailed link. The fragment is read, then removed from the address and history. */
export function MagicLinkLanding() {
  const [token] = useState(() => new URLSearchParams(location.hash.slice(1)).get('token'));
  useState(() => history.replaceState(null, '', location.pathname));
  if (!token) return <SignInForm />;
  return <Landing exchange={() => verifyMagicLink(token)} />;
}

/** GET /auth/callback?code&state: back from the OpenID provider through the gateway. */
export function OidcCallback() {
  const [params] = useState(() => new URLSearchParams(location.search));
  useState(() => history.replaceState(null, '', location.pathname));
  return (
    <Landing
      exchange={async () => {
        const failed = params.get('error');
        if (failed) throw new Error(`the provider answered ${failed}`);
        const attempt = takeOidcAttempt(params.get('state'));
        const code = params.get('code');
        if (!attempt || !code) throw new Error('this sign-in was not started here; start again');
        await exchangeOidcCode(code, attempt.verifier, attempt.redirectUri);
      }}
    />
  );
}
