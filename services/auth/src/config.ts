import { z } from 'zod';
import { env } from '@kg/config';
import { checkOidc, oidcEnv } from './oidc/config';

/** Env of the auth service when it runs as its own process. */
export const authConfigSchema = z
  .object({
    ...env.serviceBase,
    PORT: env.port(3001),
    /** Private Ed25519 JWK (JSON) that signs access tokens; from a secret. Checked at start, never echoed. */
    AUTH_SIGNING_KEY: z.string().min(1),
    /** Server-side pepper of API key HMACs; from a secret. */
    API_KEY_PEPPER: env.secret(32),
    MAIL_TRANSPORT: z.enum(['outbox', 'smtp']).default('smtp'),
    SMTP_URL: z
      .url()
      .refine((u) => /^smtps?:\/\//i.test(u), 'must be an smtp:// or smtps:// URL')
      .optional(),
    MAIL_FROM: z.string().min(1).default('Knowledge Graph <no-reply@localhost>'),
    OUTBOX_DIR: z.string().min(1).optional(),
    /** Base address of the public API, used in the link of sign-in mail. */
    PUBLIC_URL: z.url().default('http://localhost:8080'),
    /** Between two prunes of expired magic links and refresh tokens. */
    PRUNE_INTERVAL_MS: env.positiveInt(3600_000),
    /** Lifetime of access tokens (`expires_in`); short values serve tests of clients' refresh. */
    ACCESS_TOKEN_TTL_SECONDS: env.positiveInt(900),
    /** api_key.revoked and session.revoked events go to Kafka (through the auth outbox), for the gateways' key caches and event streams. */
    ...env.kafka,
    /** OpenID Connect sign-in: all three or none. */
    ...oidcEnv,
  })
  .superRefine(checkOidc)
  .superRefine(env.checkKafka)
  .superRefine((c, ctx) => {
    if (c.MAIL_TRANSPORT === 'smtp' && !c.SMTP_URL)
      ctx.addIssue({ code: 'custom', path: ['SMTP_URL'], message: 'required when MAIL_TRANSPORT=smtp' });
    if (c.MAIL_TRANSPORT === 'outbox' && !c.OUTBOX_DIR)
      ctx.addIssue({ code: 'custom', path: ['OUTBOX_DIR'], message: 'required when MAIL_TRANSPORT=outbox' });
  });
export type AuthConfig = z.infer<typeof authConfigSchema>;
