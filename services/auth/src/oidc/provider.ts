import * as client from 'openid-client';
import { AppError, unauthorized, unavailable } from '@kg/contracts';
import type { Logger } from '@kg/logger';
import type { OidcSettings } from './config';

/** What sign-in needs from the provider's answer: who (issuer, subject) and the address it vouches for. */
export interface OidcPerson {
  issuer: string;
  subject: string;
  email: string | null;
  emailVerified: boolean;
}

export interface OidcProvider {
  readonly issuer: string;
  /** The provider's authorization URL for one pending login (S256 PKCE, state, nonce). */
  authorizationUrl(p: { state: string; nonce: string; codeChallenge: string }): Promise<string>;
  /**
   * Redeems the provider's redirect (its query string) at the token endpoint with the pending
   * login's verifier, checks state and the ID token (signature, issuer, audience, expiry,
   * nonce) and returns the person. Any failed check: 401; the provider unreachable: 503.
   */
  exchange(p: { callbackQuery: string; state: string; nonce: string; codeVerifier: string }): Promise<OidcPerson>;
}

export interface OidcProviderOptions {
  settings: OidcSettings;
  /** Where the provider sends the browser back: PUBLIC_URL + /api/v1/auth/oidc/callback. */
  callbackUrl: string;
  logger: Logger;
  /** Tests only: a fetch that sees (and may alter) every call to the provider. */
  fetch?: client.CustomFetch;
}

const TIMEOUT_SECONDS = 10;

/** The fields of an openid-client error that are safe to log (codes, never token or claim values). */
const errorFields = (err: unknown) => {
  const e = err as { name?: unknown; code?: unknown; error?: unknown; status?: unknown } | null;
  const pick = (v: unknown) => (typeof v === 'string' || typeof v === 'number' ? v : undefined);
  return { name: pick(e?.name), code: pick(e?.code), error: pick(e?.error), status: pick(e?.status) };
};

/** A network failure reaching the provider (undici's fetch rejects with TypeError 'fetch failed'; a timeout aborts). */
const unreachable = (err: unknown) =>
  (err instanceof TypeError && err.message === 'fetch failed') ||
  ['TimeoutError', 'AbortError'].includes(String((err as { name?: unknown } | null)?.name));

/**
 * The configured OpenID provider through openid-client: discovery on first use (a failure is
 * not cached, so a provider that was down is found once it is back), then one configuration.
 */
export function createOidcProvider(opts: OidcProviderOptions): OidcProvider {
  const { settings, callbackUrl, logger } = opts;
  const insecure = new URL(settings.issuer).protocol === 'http:'; // loopback only (config check)
  let configuration: Promise<client.Configuration> | null = null;

  const discover = (): Promise<client.Configuration> => {
    configuration ??= client
      .discovery(
        new URL(settings.issuer),
        settings.clientId,
        undefined,
        client.ClientSecretBasic(settings.clientSecret),
        {
          timeout: TIMEOUT_SECONDS,
          ...(insecure ? { execute: [client.allowInsecureRequests] } : {}),
          ...(opts.fetch ? { [client.customFetch]: opts.fetch } : {}),
        },
      )
      .catch((err: unknown) => {
        configuration = null;
        logger.error({ issuer: settings.issuer, ...errorFields(err) }, 'OpenID provider discovery failed');
        throw unavailable('The OpenID provider cannot be reached; try again shortly');
      });
    return configuration;
  };

  return {
    issuer: settings.issuer,
    async authorizationUrl({ state, nonce, codeChallenge }) {
      const config = await discover();
      return client
        .buildAuthorizationUrl(config, {
          redirect_uri: callbackUrl,
          scope: 'openid email',
          response_type: 'code',
          code_challenge: codeChallenge,
          code_challenge_method: 'S256',
          state,
          nonce,
        })
        .toString();
    },
    async exchange({ callbackQuery, state, nonce, codeVerifier }) {
      const config = await discover();
      const current = new URL(callbackUrl);
      current.search = callbackQuery;
      try {
        const tokens = await client.authorizationCodeGrant(
          config,
          current,
          { pkceCodeVerifier: codeVerifier, expectedState: state, expectedNonce: nonce, idTokenExpected: true },
          { redirect_uri: callbackUrl },
        );
        const claims = tokens.claims();
        if (!claims) throw unauthorized('The OpenID provider returned no ID token');
        let email = typeof claims['email'] === 'string' ? claims['email'] : null;
        let verified = claims['email_verified'];
        if (email === null && config.serverMetadata().userinfo_endpoint) {
          // Providers that keep scope claims out of the ID token answer them at userinfo (same subject checked).
          const info = await client.fetchUserInfo(config, tokens.access_token, claims.sub);
          email = typeof info.email === 'string' ? info.email : null;
          verified = info.email_verified;
        }
        return {
          issuer: claims.iss,
          subject: claims.sub,
          email: email ? email.toLowerCase() : null,
          // Some providers send the boolean as a string.
          emailVerified: verified === true || verified === 'true',
        };
      } catch (err) {
        if (err instanceof AppError) throw err;
        logger.warn({ issuer: settings.issuer, ...errorFields(err) }, 'OpenID sign-in refused');
        if (unreachable(err)) throw unavailable('The OpenID provider cannot be reached; try again shortly');
        throw unauthorized('The OpenID sign-in could not be verified; start again');
      }
    },
  };
}
