import { z } from 'zod';

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

/**
 * OpenID Connect sign-in settings (auth service and the one-process host): all three or
 * none. The issuer must be https, except on a loopback address (a provider run by tests).
 */
export const oidcEnv = {
  /** Issuer identifier of the OpenID provider; its /.well-known/openid-configuration is discovered. */
  OIDC_ISSUER: z
    .url()
    .refine((u) => {
      if (!URL.canParse(u)) return false; // z.url() has said so already
      const url = new URL(u);
      return url.protocol === 'https:' || (url.protocol === 'http:' && LOOPBACK.has(url.hostname));
    }, 'must be an https:// URL (http:// only on a loopback address)')
    .optional(),
  OIDC_CLIENT_ID: z.string().min(1).max(500).optional(),
  /** The client secret registered at the provider; from a secret, never logged. */
  OIDC_CLIENT_SECRET: z.string().min(1).max(2000).optional(),
};

type OidcFields = {
  OIDC_ISSUER?: string | undefined;
  OIDC_CLIENT_ID?: string | undefined;
  OIDC_CLIENT_SECRET?: string | undefined;
};
const NAMES = ['OIDC_ISSUER', 'OIDC_CLIENT_ID', 'OIDC_CLIENT_SECRET'] as const;

/** superRefine: the three OIDC variables are set together or not at all. */
export function checkOidc(c: OidcFields, ctx: z.RefinementCtx): void {
  const set = NAMES.filter((n) => c[n] !== undefined);
  if (set.length === 0 || set.length === NAMES.length) return;
  for (const n of NAMES.filter((n) => c[n] === undefined))
    ctx.addIssue({ code: 'custom', path: [n], message: `required with ${set.join(', ')} (set all three or none)` });
}

export interface OidcSettings {
  issuer: string;
  clientId: string;
  clientSecret: string;
}

/** The settings when all three are set (checkOidc guarantees all or none). */
export const oidcSettings = (c: OidcFields): OidcSettings | null =>
  c.OIDC_ISSUER && c.OIDC_CLIENT_ID && c.OIDC_CLIENT_SECRET
    ? { issuer: c.OIDC_ISSUER, clientId: c.OIDC_CLIENT_ID, clientSecret: c.OIDC_CLIENT_SECRET }
    : null;
