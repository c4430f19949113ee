import { z } from 'zod';
import { mutation, query } from '../procedure';
import {
  ApiKey,
  ApiKeyCreated,
  CreateApiKeyInput,
  Identity,
  MagicLinkAccepted,
  MagicLinkRequest,
  MagicLinkVerify,
  PkceChallenge,
  PkceVerifier,
  RefreshRequest,
  TokenPair,
} from '../auth';
import { ById, listOf, text } from '../common';

const OidcStatus = z.object({ enabled: z.boolean(), issuer: z.string().nullable() });
const OidcAuthorize = z
  .object({ state: text({ min: 1, max: 200 }), nonce: text({ min: 1, max: 200 }), code_challenge: PkceChallenge })
  .strict();
/** The provider's redirect (its query string as received) and the pending login's secrets. */
const OidcComplete = z
  .object({
    callback_query: text({ min: 1, max: 8000 }),
    state: text({ min: 1, max: 200 }),
    nonce: text({ min: 1, max: 200 }),
    code_verifier: PkceVerifier,
  })
  .strict();

export const Jwks = z.object({ keys: z.array(z.record(z.string(), z.unknown())) });

/** The auth service's tRPC contract. */
export const authApi = {
  magicLink: {
    request: mutation('service', MagicLinkRequest, MagicLinkAccepted, ['gateway']),
    verify: mutation('service', MagicLinkVerify, TokenPair, ['gateway']),
  },
  tokens: {
    refresh: mutation('service', RefreshRequest, TokenPair, ['gateway']),
    jwks: query('service', z.object({}), Jwks, ['gateway']),
    /** Sign-out: revokes the whole family of a refresh token (idempotent; unknown tokens change nothing). */
    revoke: mutation('service', RefreshRequest, z.object({ revoked: z.boolean() }), ['gateway']),
  },
  /** OpenID Connect sign-in: the gateway keeps the pending login (kv), auth talks to the provider. */
  oidc: {
    status: query('service', z.object({}), OidcStatus, ['gateway']),
    authorize: mutation('service', OidcAuthorize, z.object({ authorization_url: z.string() }), ['gateway']),
    complete: mutation('service', OidcComplete, TokenPair, ['gateway']),
  },
  apiKeys: {
    create: mutation('tenant', CreateApiKeyInput, ApiKeyCreated, ['gateway']),
    list: query('tenant', z.object({}), listOf(ApiKey), ['gateway']),
    revoke: mutation('tenant', ById, z.object({ revoked: z.literal(true) }), ['gateway']),
    verify: mutation('service', z.object({ key: text({ max: 200 }) }), Identity, ['gateway']),
  },
} as const;
