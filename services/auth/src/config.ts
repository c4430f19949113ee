import { z } from 'zod';
import { env } from '@kg/config';

/** Env of the auth service when it runs as its own process. */
export const authConfigSchema = z
  .object({
    ...env.serviceBase,
    PORT: env.port(3001),
    /** Private Ed25519 JWK (JSON) that signs access tokens; from a Kubernetes secret. */
    AUTH_SIGNING_KEY: z.string().min(1),
    /** Server-side pepper of API key HMACs. */
    API_KEY_PEPPER: env.secret(32),
    MAIL_TRANSPORT: z.enum(['outbox', 'smtp']).default('smtp'),
    SMTP_URL: z.url().optional(),
    MAIL_FROM: z.string().default('Knowledge Graph <no-reply@localhost>'),
    OUTBOX_DIR: z.string().optional(),
    PUBLIC_URL: z.url().default('http://localhost:8080'),
  })
  .superRefine((c, issue) => {
    if (c.MAIL_TRANSPORT === 'smtp' && !c.SMTP_URL)
      issue.addIssue({ code: 'custom', path: ['SMTP_URL'], message: 'required when MAIL_TRANSPORT=smtp' });
    if (c.MAIL_TRANSPORT === 'outbox' && !c.OUTBOX_DIR)
      issue.addIssue({ code: 'custom', path: ['OUTBOX_DIR'], message: 'required when MAIL_TRANSPORT=outbox' });
  });
export type AuthConfig = z.infer<typeof authConfigSchema>;
