import type { capturesApi } from '@kg/contracts';
import type { Handlers } from '@kg/trpc';
import type { CapturesContext } from '../domain/context';
import {
  archiveCapture,
  createCapture,
  dismissCapture,
  reingestCapture,
  removeCapture,
  retryCapture,
  unarchiveCapture,
} from '../domain/lifecycle';
import {
  activityTimeline,
  captureContent,
  captureStats,
  checkUrl,
  getCapture,
  pageOfCaptures,
  provenance,
} from '../domain/reads';
import { uploadCapture } from '../domain/uploads';
import { storedBytes } from '../store/captures';

type H = Omit<Handlers<typeof capturesApi>, 'info' | 'pipeline' | 'webhooks' | 'imports'>;

/** The public capture operations (the gateway's calls), each acting for the caller's tenant. */
export const captureHandlers = (ctx: CapturesContext): H => ({
  stats: ({ ctx: c }) => captureStats(ctx, c.identity.tenantId),
  usage: async ({ ctx: c }) => ({ stored_bytes: await storedBytes(ctx.db, c.identity.tenantId) }),
  create: ({ input, ctx: c }) => createCapture(ctx, c.identity.tenantId, input),
  upload: ({ input, ctx: c }) => uploadCapture(ctx, c.identity.tenantId, input),
  check: ({ input, ctx: c }) => checkUrl(ctx, c.identity.tenantId, input.url),
  list: ({ input, ctx: c }) => pageOfCaptures(ctx, c.identity.tenantId, input),
  get: ({ input, ctx: c }) => getCapture(ctx, c.identity.tenantId, input.id),
  content: ({ input, ctx: c }) => captureContent(ctx, c.identity.tenantId, input.id, input.format),
  retry: ({ input, ctx: c }) => retryCapture(ctx, c.identity.tenantId, input.id),
  reingest: ({ input, ctx: c }) => reingestCapture(ctx, c.identity.tenantId, input.id),
  archive: ({ input, ctx: c }) => archiveCapture(ctx, c.identity.tenantId, input.id),
  unarchive: ({ input, ctx: c }) => unarchiveCapture(ctx, c.identity.tenantId, input.id),
  dismiss: ({ input, ctx: c }) => dismissCapture(ctx, c.identity.tenantId, input.id),
  delete: async ({ input, ctx: c }) => {
    await removeCapture(ctx, c.identity.tenantId, input.id);
    return { deleted: true as const };
  },
  activity: ({ input, ctx: c }) => activityTimeline(ctx, c.identity.tenantId, input.id),
  provenance: ({ input, ctx: c }) => provenance(ctx, c.identity.tenantId, input.id),
});
