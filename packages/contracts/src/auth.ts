import { z } from 'zod';
import { ApiKeyId, TenantId } from './ids';
import { Timestamp, text } from './common';

export const Email = z
  .email()
  .max(254)
  // RFC 5321 §4.5.3.1.1: the local part holds at most 64 octets (format: email in the OpenAPI document says so too).
  .refine((e) => e.slice(0, e.lastIndexOf('@')).length <= 64, 'The part before @ must be at most 64 characters')
  .transform((e) => e.toLowerCase())
  .meta({ example: 'ada@example.com' });

/**
 * The page a sign-in mail opens: `PUBLIC_URL/sign-in#token=…`. The token travels in the
 * fragment, which browsers never send to a server (no access log or proxy sees it).
 */
export const SIGN_IN_PATH = '/sign-in';

export const MagicLinkRequest = z.object({ email: Email }).strict().meta({ id: 'MagicLinkRequest' });
export const MagicLinkAccepted = z
  .object({ status: z.literal('accepted'), detail: z.string() })
  .meta({ id: 'MagicLinkAccepted' });
export const MagicLinkVerify = z
  .object({ token: text({ min: 1, max: 200 }) })
  .strict()
  .meta({ id: 'MagicLinkVerify' });
export const RefreshRequest = z
  .object({ refresh_token: text({ min: 1, max: 200 }) })
  .strict()
  .meta({ id: 'RefreshRequest' });

/** POST /auth/refresh: `refresh_token` may be left out only by a dashboard session (header `X-KG-Session: cookie`). */
export const RefreshBody = z
  .object({
    refresh_token: text({ min: 1, max: 200 }).optional().meta({
      description:
        'Required unless the request carries `X-KG-Session: cookie` (the token is then read from the cookie)',
    }),
  })
  .strict()
  .meta({ id: 'RefreshBody' });
/** POST /auth/logout: the refresh token of the session to end (or the dashboard's cookie). */
export const LogoutBody = RefreshBody.meta({ id: 'LogoutBody' });

export const TokenPair = z
  .object({
    access_token: z.string(),
    refresh_token: z.string(),
    expires_in: z.number().int().meta({ description: 'Access token lifetime in seconds (900)' }),
    token_type: z.literal('Bearer'),
  })
  .meta({ id: 'TokenPair' });
export type TokenPair = z.infer<typeof TokenPair>;

/**
 * A dashboard session's sign-in answer (`X-KG-Session: cookie`): the refresh token travels
 * only in an HttpOnly cookie; `csrf_token` (also the readable cookie `kg_csrf`) goes back as
 * header `X-CSRF-Token` on POST /auth/refresh and /auth/logout.
 */
export const CookieSession = z
  .object({
    access_token: z.string(),
    expires_in: z.number().int().meta({ description: 'Access token lifetime in seconds (900)' }),
    token_type: z.literal('Bearer'),
    csrf_token: z.string().meta({ description: 'Double-submit token: send it as header X-CSRF-Token' }),
  })
  .meta({ id: 'CookieSession' });
export type CookieSession = z.infer<typeof CookieSession>;

/** GET /auth/providers: the sign-in methods this deployment offers. */
export const AuthProviders = z
  .object({
    magic_link: z.literal(true),
    oidc: z.object({
      enabled: z.boolean(),
      issuer: z.string().nullable().meta({ description: 'The configured OpenID provider (OIDC_ISSUER), or null' }),
    }),
  })
  .meta({ id: 'AuthProviders' });
export type AuthProviders = z.infer<typeof AuthProviders>;

/** PKCE (RFC 7636): a verifier is 43–128 unreserved characters; an S256 challenge is 43 base64url characters. */
export const PkceVerifier = z
  .string()
  .regex(/^[A-Za-z0-9._~-]{43,128}$/, 'must be 43 to 128 characters of A-Z a-z 0-9 - . _ ~ (RFC 7636)');
export const PkceChallenge = z
  .string()
  .regex(/^[A-Za-z0-9_-]{43}$/, 'must be the base64url SHA-256 of the code verifier (43 characters)');

export const OidcStartQuery = z
  .object({
    redirect_uri: text({ min: 1, max: 2000 }).meta({
      description:
        'Where the one-time code goes: a loopback URL http://127.0.0.1:<port>/… or http://[::1]:<port>/… (RFC 8252), or PUBLIC_URL/auth/callback (the dashboard)',
    }),
    code_challenge: PkceChallenge,
    code_challenge_method: z.literal('S256'),
    state: text({ min: 1, max: 500 }).meta({ description: 'Opaque to the server; returned unchanged with the code' }),
  })
  .strict()
  .meta({ id: 'OidcStartQuery' });

/** The provider's redirect to GET /auth/oidc/callback (RFC 6749 §4.1.2, RFC 9207 `iss`). */
export const OidcCallbackQuery = z
  .object({
    state: text({ min: 1, max: 500 }),
    code: text({ min: 1, max: 2000 }).optional(),
    error: text({ min: 1, max: 200 }).optional(),
    error_description: text({ max: 2000 }).optional(),
    iss: text({ min: 1, max: 2000 }).optional(),
    session_state: text({ max: 2000 }).optional(),
  })
  .strict()
  .meta({ id: 'OidcCallbackQuery' });

export const OidcTokenRequest = z
  .object({
    code: text({ min: 1, max: 200 }),
    code_verifier: PkceVerifier,
    redirect_uri: text({ min: 1, max: 2000 }),
  })
  .strict()
  .meta({ id: 'OidcTokenRequest' });

export const ApiKey = z
  .object({
    id: ApiKeyId,
    name: z.string(),
    prefix: z.string().meta({ description: 'First characters of the raw key, to recognise it' }),
    created_at: Timestamp,
    last_used_at: Timestamp.nullable().meta({ description: 'Updated at most once a minute' }),
    revoked_at: Timestamp.nullable(),
  })
  .meta({ id: 'ApiKey' });
export type ApiKey = z.infer<typeof ApiKey>;

export const ApiKeyCreated = ApiKey.extend({
  key: z.string().meta({ description: 'The raw key `{key_id}.{secret}`. Returned only once.' }),
}).meta({ id: 'ApiKeyCreated' });

export const CreateApiKeyInput = z
  .object({ name: text({ max: 100, trim: true }) })
  .strict()
  .meta({ id: 'CreateApiKeyInput' });

/** Who a request acts for, established by the gateway from a JWT or an API key. */
export const Identity = z.object({
  tenantId: TenantId,
  subject: z.string(),
  credential: z.object({ kind: z.enum(['jwt', 'api_key']), id: z.string() }),
  /** The user's e-mail when the credential carries it (access tokens and API keys do; null: the user has none). */
  email: z.string().nullable().optional(),
});
export type Identity = z.infer<typeof Identity>;

/** GET /auth/me: who the credential acts for (an endpoint that only authenticates). */
export const Me = z
  .object({
    user_id: z.string(),
    tenant_id: TenantId,
    email: z.string().nullable().meta({ description: 'Null for a user without an e-mail address' }),
    auth: z.enum(['bearer', 'api_key']).meta({ description: 'How the request authenticated' }),
  })
  .meta({ id: 'Me' });
export type Me = z.infer<typeof Me>;
