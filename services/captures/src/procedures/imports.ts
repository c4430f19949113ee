import type { capturesApi } from '@kg/contracts';
import type { Handlers } from '@kg/trpc';
import type { ImportsContext } from '../imports/context';
import {
  abortImport,
  cancelImport,
  getImport,
  openImport,
  pageOfImports,
  putImportPart,
  startImport,
} from '../imports/lifecycle';

type H = Handlers<typeof capturesApi>['imports'];

/** The bookmark import operations (the gateway's calls), each acting for the caller's tenant. */
export const importHandlers = (ctx: ImportsContext): H => ({
  open: ({ ctx: c }) => openImport(ctx, c.identity.tenantId),
  putPart: async ({ input, ctx: c }) => {
    await putImportPart(ctx, c.identity.tenantId, input.id, input.part, Buffer.from(input.bytes_base64, 'base64'));
    return { stored: true as const };
  },
  start: ({ input, ctx: c }) => startImport(ctx, c.identity.tenantId, input),
  abort: ({ input, ctx: c }) => abortImport(ctx, c.identity.tenantId, input.id),
  list: ({ input, ctx: c }) => pageOfImports(ctx, c.identity.tenantId, input),
  get: ({ input, ctx: c }) => getImport(ctx, c.identity.tenantId, input.id),
  cancel: ({ input, ctx: c }) => cancelImport(ctx, c.identity.tenantId, input.id),
});
