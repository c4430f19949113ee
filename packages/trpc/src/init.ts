import { initTRPC, TRPCError } from '@trpc/server';
import { AppError, isAppError, type Callers, type Level } from '@kg/contracts';
import type { CallContext, TenantContext } from './context';
import { problemFromTRPCError, toTRPCError } from './problem';
import { withRequestId } from './request-context';

/** `t` is created once here and never exported: services get procedure levels only. */
const t = initTRPC.context<CallContext>().create({
  errorFormatter({ shape, error }) {
    const problem = problemFromTRPCError(error);
    return {
      code: shape.code,
      message: problem.detail,
      data: { code: shape.data.code, httpStatus: problem.status, problem },
    };
  },
});

/** Maps typed domain errors to tRPC errors, once, for every procedure. */
const mapDomainErrors = t.middleware(async ({ next }) => {
  const result = await next();
  if (!result.ok && isAppError(result.error.cause)) {
    const mapped = toTRPCError(result.error.cause);
    return { ...result, error: mapped };
  }
  return result;
});

export const router = t.router;

/** Calls this procedure makes to other services carry the request id it serves. */
const carryRequestId = t.middleware(({ ctx, next }) => withRequestId(ctx.requestId, () => next()));

/** Any authenticated service-to-service call (the caller is proven: token or in-process host). */
const serviceProcedure = t.procedure.use(carryRequestId).use(mapDomainErrors);

/** A call on behalf of a person: the identity (tenant, subject) is required. */
const requireIdentity = t.middleware(({ ctx, next }) => {
  if (!ctx.identity) throw new TRPCError({ code: 'UNAUTHORIZED', message: 'This call needs an identity' });
  return next({ ctx: ctx as TenantContext });
});

/**
 * The procedure of a contract: first the caller allowlist (403 for any service the
 * contract does not list, before input is even parsed), then the identity a `tenant`
 * procedure needs. The same check runs in both modes: the in-process link and the HTTP
 * adapter both put the proven caller in the context.
 */
export function contractProcedure(level: Level, callers: Callers) {
  const allowed = serviceProcedure.use(({ ctx, path, next }) => {
    if (!(callers as readonly string[]).includes(ctx.caller))
      throw new AppError('forbidden', `The ${ctx.caller} service may not call ${path}`);
    return next();
  });
  return level === 'tenant' ? allowed.use(requireIdentity) : allowed;
}
