import type { z } from 'zod';

/**
 * A service procedure declared contract-first: its kind, who may call it, and the
 * zod schemas of its input and output. Services implement these contracts
 * (packages/trpc `defineRouter`), callers get typed clients from the same objects,
 * so no service ever imports another service's code.
 *
 * level `service`: any authenticated internal caller; `tenant`: also needs the
 * identity of the person the call acts for.
 */
export type Level = 'service' | 'tenant';

export interface ProcedureContract<
  I extends z.ZodType = z.ZodType,
  O extends z.ZodType = z.ZodType,
  L extends Level = Level,
> {
  readonly __procedure: true;
  readonly kind: 'query' | 'mutation';
  readonly level: L;
  readonly input: I;
  readonly output: O;
}

export type ContractTree = { readonly [key: string]: ProcedureContract | ContractTree };

export const query = <L extends Level, I extends z.ZodType, O extends z.ZodType>(
  level: L,
  input: I,
  output: O,
): ProcedureContract<I, O, L> => ({ __procedure: true, kind: 'query', level, input, output });

export const mutation = <L extends Level, I extends z.ZodType, O extends z.ZodType>(
  level: L,
  input: I,
  output: O,
): ProcedureContract<I, O, L> => ({ __procedure: true, kind: 'mutation', level, input, output });

export const isProcedure = (value: unknown): value is ProcedureContract =>
  typeof value === 'object' && value !== null && (value as { __procedure?: unknown }).__procedure === true;
