import { useEffect, useState } from 'react';

export interface Providers {
  magic_link: boolean;
  oidc: { enabled: boolean; issuer: string | null };
}

/** GET /auth/providers: which sign-in methods this server offers (magic link only when unknown). */
export function useProviders(): Providers | null {
  const [providers, setProviders] = useState<Providers | null>(null);
  useEffect(() => {
    fetch('/api/v1/auth/providers', { credentials: 'omit' })
      .then((res) => (res.ok ? (res.json() as Promise<Providers>) : null))
      .then(setProviders, () => setProviders(null));
  }, []);
  return providers;
}

const KEY = 'kg.oidc';
const base64url = (bytes: Uint8Array) =>
  btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');
const random = (n: number) => base64url(crypto.getRandomValues(new Uint8Array(n)));

/**
 * Authorization code + PKCE through the gateway: the verifier and state stay in this tab's
 * sessionStorage until the callback (they are useless without the one-time code).
 */
export async function startOidc(): Promise<void> {
  const verifier = random(32);
  const state = random(16);
  const redirectUri = `${location.origin}/auth/callback`;
  const challenge = base64url(
    new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier))),
  );
  sessionStorage.setItem(KEY, JSON.stringify({ verifier, state, redirectUri }));
  const query = new URLSearchParams({
    redirect_uri: redirectUri,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state,
  });
  location.assign(`/api/v1/auth/oidc/start?${query}`);
}

/** The attempt this tab started, once, when the state matches. */
export function takeOidcAttempt(state: string | null): { verifier: string; redirectUri: string } | null {
  const raw = sessionStorage.getItem(KEY);
  sessionStorage.removeItem(KEY);
  if (!raw || !state) return null;
  const attempt = JSON.parse(raw) as { verifier: string; state: string; redirectUri: string };
  return attempt.state === state ? attempt : null;
}
