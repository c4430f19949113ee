import { type z } from 'zod';
import { env } from '@kg/config';

/** Bookmark import settings, the same in both modes (the one-process host spreads them into its own schema). */
export const importsEnv = {
  /** Largest bookmark file POST /imports takes (bytes; 413 beyond). The gateway reads it too. */
  IMPORT_MAX_BYTES: env.positiveInt(100 * 1024 * 1024),
  /** Imports a tenant may have queued or running (or being uploaded) at once (429 beyond). */
  IMPORT_MAX_ACTIVE: env.positiveInt(5),
  /** An import adds captures only while fewer than this many of its captures are still pending or processing. */
  IMPORT_MAX_IN_FLIGHT: env.positiveInt(200),
  /** Captures created per transaction (with the import's progress and their capture.queued events). */
  IMPORT_BATCH_SIZE: env.positiveInt(100),
  /** How long a runner's claim on an import holds without progress (ms); a dead runner's import is taken over after it. */
  IMPORT_LEASE_MS: env.positiveInt(60_000),
};
export type ImportsConfig = z.infer<z.ZodObject<typeof importsEnv>>;

/** A batch larger than the in-flight cap could never be admitted whole. */
export function checkImports(c: ImportsConfig, ctx: z.RefinementCtx): void {
  if (c.IMPORT_BATCH_SIZE > c.IMPORT_MAX_IN_FLIGHT)
    ctx.addIssue({ code: 'custom', path: ['IMPORT_BATCH_SIZE'], message: 'must not exceed IMPORT_MAX_IN_FLIGHT' });
  if (c.IMPORT_BATCH_SIZE > 1000)
    ctx.addIssue({ code: 'custom', path: ['IMPORT_BATCH_SIZE'], message: 'must be at most 1000' });
}
