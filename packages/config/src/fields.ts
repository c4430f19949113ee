import { z } from 'zod';

/** Reusable env-var field parsers: every env value arrives as a string. */
export const port = (fallback: number) => z.coerce.number().int().min(0).max(65535).default(fallback);
export const positiveInt = (fallback: number) => z.coerce.number().int().positive().default(fallback);
export const url = () => z.url();
export const bool = (fallback: boolean) =>
  z
    .enum(['true', 'false', '1', '0', 'yes', 'no'])
    .default(fallback ? 'true' : 'false')
    .transform((v) => v === 'true' || v === '1' || v === 'yes');
export const list = () =>
  z
    .string()
    .default('')
    .transform((v) =>
      v
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    );
export const logLevel = () => z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info');
export const secret = (minLength = 32) => z.string().min(minLength, `must be at least ${minLength} characters`);

const base64url32 = z.string().regex(/^[A-Za-z0-9_-]{43}$/, 'must be 32 bytes in base64url (43 characters)');
const jwkFields = {
  kty: z.literal('OKP'),
  crv: z.literal('Ed25519'),
  x: base64url32,
  kid: z.string().optional(),
  alg: z.literal('EdDSA').optional(),
};
/** A public Ed25519 JWK; one that carries the private part (`d`) is refused, so it never lands in a ConfigMap. */
const PublicJwk = z.object({
  ...jwkFields,
  d: z.never({ error: 'holds a private key (d): publish public keys only' }).optional(),
});
const PrivateJwk = z.object({ ...jwkFields, d: base64url32 });
export type PublicJwk = z.infer<typeof PublicJwk>;
export type PrivateJwk = z.infer<typeof PrivateJwk>;

/** Parses a JSON variable; a parse failure says what was expected and never echoes the value. */
const json = (what: string) =>
  z.string().transform((raw, ctx) => {
    try {
      return JSON.parse(raw) as unknown;
    } catch {
      ctx.addIssue({ code: 'custom', message: `must be JSON (${what})` });
      return z.NEVER;
    }
  });

/** This service's private Ed25519 JWK (JSON) that signs its internal tokens; from a Secret. */
export const internalSigningKey = () => json('a private Ed25519 JWK').pipe(PrivateJwk);

const ServiceKeys = z.preprocess((v) => (Array.isArray(v) ? v : [v]), z.array(PublicJwk).min(1));
/**
 * The public Ed25519 keys of the services that may call this one, by service name: a JSON
 * object `{"gateway": <JWK>, …}` (a value may be an array of JWKs during a rotation), or a
 * JWKS `{"keys": [<JWK with kid = service name>, …]}`. Normalised to name → keys.
 */
export const internalPublicKeys = () =>
  json('service name → public Ed25519 JWK, or a JWKS')
    .transform((v) => (isJwks(v) ? byKid(v.keys) : v))
    .pipe(
      z
        .record(z.string().regex(/^[a-z][a-z-]*$/, 'service names are lowercase words'), ServiceKeys)
        .refine((m) => Object.keys(m).length > 0, 'names no service'),
    );

const isJwks = (v: unknown): v is { keys: unknown[] } =>
  typeof v === 'object' && v !== null && Array.isArray((v as { keys?: unknown }).keys);
/** A JWKS grouped by `kid` (the service name); keys without a kid end up under "(no kid)" and fail the name rule. */
function byKid(keys: unknown[]): Record<string, unknown[]> {
  const out: Record<string, unknown[]> = {};
  for (const key of keys) {
    const kid = (key as { kid?: unknown } | null)?.kid;
    (out[typeof kid === 'string' ? kid : '(no kid)'] ??= []).push(key);
  }
  return out;
}

/** Env every standalone service process reads (services extend it with their own fields). */
export const serviceBase = {
  PORT: port(3000),
  HOST: z.string().default('0.0.0.0'),
  LOG_LEVEL: logLevel(),
  DATABASE_URL: z.url().refine((u) => u.startsWith('postgres'), 'must be a postgres:// URL'),
  INTERNAL_SIGNING_KEY: internalSigningKey(),
  INTERNAL_PUBLIC_KEYS: internalPublicKeys(),
};

/** Comma-separated Kafka bootstrap servers, required by services that publish or consume events. */
export const kafkaBrokers = () =>
  z
    .string()
    .min(1)
    .transform((v) =>
      v
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    );
