import { z } from 'zod';
import { env } from '@kg/config';
import { checkImports, importsEnv } from './imports/config';
import { checkWebhooks, webhooksEnv } from './webhooks/config';

/** Env of the captures service when it runs as its own process. */
export const capturesConfigSchema = z
  .object({
    ...env.serviceBase,
    PORT: env.port(3005),
    /** capture.queued (kg.captures.v1) and capture.changed (kg.captures.changes.v1) leave through the outbox. */
    ...env.kafka,
    /** Where uploaded files live: `s3` (S3-compatible object storage) or `fs` (a directory; one replica only). */
    BLOB_STORE: z.enum(['s3', 'fs']).default('s3'),
    /** Directory of the `fs` blob store. */
    BLOB_DIR: z.string().min(1).optional(),
    /** S3 endpoint (MinIO, Ceph, R2, …); unset for AWS S3. */
    S3_ENDPOINT: env.url().optional(),
    S3_REGION: z.string().min(1).default('us-east-1'),
    S3_BUCKET: z.string().min(3).max(63).optional(),
    S3_ACCESS_KEY_ID: z.string().min(1).optional(),
    S3_SECRET_ACCESS_KEY: z.string().min(1).optional(),
    /** Path-style URLs (bucket in the path): MinIO and most S3-compatible servers need them. */
    S3_FORCE_PATH_STYLE: env.bool(true),
    /** Create the bucket at start-up when missing (needs the permission). */
    S3_CREATE_BUCKET: env.bool(false),
    /** How long a worker's claim on a capture holds without news (ms). */
    CAPTURE_LEASE_MS: env.positiveInt(120_000),
    /** Webhook deliveries (webhooks/config.ts). */
    ...webhooksEnv,
    /** Bookmark imports (imports/config.ts). */
    ...importsEnv,
  })
  .superRefine(env.checkKafka)
  .superRefine(checkWebhooks)
  .superRefine(checkImports)
  .superRefine((c, ctx) => {
    const need = (key: string, why: string) =>
      ctx.addIssue({ code: 'custom', path: [key], message: `required ${why}` });
    if (c.BLOB_STORE === 'fs' && !c.BLOB_DIR) need('BLOB_DIR', 'when BLOB_STORE=fs');
    if (c.BLOB_STORE === 's3')
      for (const key of ['S3_BUCKET', 'S3_ACCESS_KEY_ID', 'S3_SECRET_ACCESS_KEY'] as const)
        if (!c[key]) need(key, 'when BLOB_STORE=s3');
  });
export type CapturesConfig = z.infer<typeof capturesConfigSchema>;
