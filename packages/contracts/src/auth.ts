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

export const TokenPair = z
  .object({
    access_token: z.string(),
    refresh_token: z.string(),
    expires_in: z.number().int().meta({ description: 'Access token lifetime in seconds (900)' }),
    token_type: z.literal('Bearer'),
  })
  .meta({ id: 'TokenPair' });
export type TokenPair = z.infer<typeof TokenPair>;

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
