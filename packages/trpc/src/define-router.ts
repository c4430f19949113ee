import type { z } from 'zod';
import { isProcedure, type ContractTree, type ProcedureContract } from '@kg/contracts';
import type { CallContext, TenantContext } from './context';
import { contractProcedure, router } from './init';

type Ctx<L> = L extends 'tenant' ? TenantContext : CallContext;

/** The handlers a service writes for a contract: one function per procedure, fully typed. */
export type Handlers<T extends ContractTree> = {
  [K in keyof T]: T[K] extends ProcedureContract<infer I, infer O, infer L>
    ? (args: { input: z.output<I>; ctx: Ctx<L> }) => Promise<z.input<O>>
    : T[K] extends ContractTree
      ? Handlers<T[K]>
      : never;
};

type AnyHandler = (args: { input: unknown; ctx: CallContext }) => Promise<unknown>;

function build(contract: ContractTree, handlers: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, node] of Object.entries(contract)) {
    const handler = handlers[key];
    if (isProcedure(node)) {
      const base = contractProcedure(node.level, node.callers).input(node.input).output(node.output);
      const resolve = handler as AnyHandler;
      out[key] =
        node.kind === 'query'
          ? base.query(({ input, ctx }) => resolve({ input, ctx }))
          : base.mutation(({ input, ctx }) => resolve({ input, ctx }));
    } else {
      out[key] = router(build(node, handler as Record<string, unknown>) as never);
    }
  }
  return out;
}

/**
 * Builds a service's tRPC router from its contract (packages/contracts) and its handlers.
 * Every procedure refuses callers its contract does not list (403), then validates input
 * and output with the contract's zod schemas.
 */
export function defineRouter<T extends ContractTree>(contract: T, handlers: Handlers<T>) {
  return router(build(contract, handlers as Record<string, unknown>) as never);
}

export type ServiceRouter = ReturnType<typeof defineRouter>;
