import { homedir } from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { env } from '@kg/config';
import { PGLITE_SHARED_BUFFERS_MB } from '@kg/db';
import { gatewayHttpSchema } from '@kg/service-gateway/module';
import { checkPipeline, pipelineEnv } from '@kg/service-ingest-worker/module';
import { rankingEnv } from '@kg/service-search/module';
import { checkOidc, oidcEnv } from '@kg/service-auth/module';
import { checkImports, checkWebhooks, importsEnv, webhooksEnv } from '@kg/service-captures/module';

/** Env of the one-process host: every service in one process, all state under DATA_DIR. */
export const standaloneConfigSchema = gatewayHttpSchema
  .extend({
    DATA_DIR: z.string().min(1).default('./data'),
    /** A copy of PGlite's initdb output for a new DATA_DIR (packages/db/src/pglite-template.ts); empty: none kept. */
    PGLITE_TEMPLATE_DIR: z.string().default(path.join(homedir(), '.cache', 'kg', 'pglite')),
    /** PostgreSQL's shared_buffers inside PGlite, MiB (default PostgreSQL's 128; fewer: a smaller process once they fill). */
    PGLITE_SHARED_BUFFERS_MB: z.coerce.number().int().min(1).max(4096).default(PGLITE_SHARED_BUFFERS_MB),
    /** PGlite in a worker thread of its own (packages/db/src/pglite-thread.ts); default in the main thread (docs/configuration.md). */
    PGLITE_THREAD: env.bool(false),
    MAIL_TRANSPORT: z.enum(['outbox', 'smtp']).default('outbox'),
    SMTP_URL: z.url().optional(),
    MAIL_FROM: z.string().default('Knowledge Graph <no-reply@localhost>'),
    PUBLIC_URL: z.url().default('http://localhost:8080'),
    OUTBOX_POLL_MS: env.positiveInt(250),
    /** Between two runs of the prune jobs (expired sign-in records, event ledger, tombstones). */
    PRUNE_INTERVAL_MS: env.positiveInt(3600_000),
    /** Lifetime of access tokens in seconds (`expires_in`). */
    ACCESS_TOKEN_TTL_SECONDS: env.positiveInt(900),
    /** Processed-event ledger rows and search tombstones are kept this many hours. */
    EVENT_RETENTION_HOURS: env.positiveInt(168),
    /** Webhook deliveries (services/captures/src/webhooks/config.ts). */
    ...webhooksEnv,
    /** Bookmark imports (services/captures/src/imports/config.ts). */
    ...importsEnv,
    /** The ingest pipeline (services/ingest-worker/src/config.ts). */
    ...pipelineEnv,
    /** The search service's embedder (packages/embeddings); its vector index persists under DATA_DIR/vectors. */
    ...env.embeddings,
    /** Between two search indexing passes when nothing is pending. */
    INDEX_INTERVAL_MS: env.positiveInt(200),
    /** Search ranking (services/search/src/config.ts). */
    ...rankingEnv,
    /** OpenID Connect sign-in (services/auth/src/oidc/config.ts): all three or none. */
    ...oidcEnv,
  })
  .superRefine(checkOidc)
  .superRefine(checkPipeline)
  .superRefine(checkWebhooks)
  .superRefine(checkImports)
  .superRefine(env.checkEmbeddings)
  .refine((c) => c.MAIL_TRANSPORT !== 'smtp' || c.SMTP_URL, {
    message: 'SMTP_URL is required when MAIL_TRANSPORT=smtp',
    path: ['SMTP_URL'],
  });
export type StandaloneConfig = z.infer<typeof standaloneConfigSchema>;
