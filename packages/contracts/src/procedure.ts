import type { z } from 'zod';

/**
 * A service procedure declared contract-first: its kind, who may call it, and the
 * zod schemas of its input and output. Services implement these contracts
 * (packages/trpc `defineRouter`), callers get typed clients from the same objects,
 * so no service ever imports another service's code.
 *
 * level `service`: a call of the service itself; `tenant`: also needs the identity of
 * the person the call acts for. `callers`: the services allowed to call it (least
 * privilege: list only those that need it; every other caller is refused with 403).
 */
export type Level = 'service' | 'tenant';

/** The seven services: the only names a caller can have (each signs with its own key). */
export const SERVICE_NAMES = ['gateway', 'auth', 'graph', 'para', 'captures', 'search', 'ingest-worker'] as const;
export type ServiceName = (typeof SERVICE_NAMES)[number];
export type Callers = readonly [ServiceName, ...ServiceName[]];

export interface ProcedureContract<
  I extends z.ZodType = z.ZodType,
  O extends z.ZodType = z.ZodType,
  L extends Level = Level,
> {
  readonly __procedure: true;
  readonly kind: 'query' | 'mutation';
  readonly level: L;
  readonly callers: Callers;
  readonly input: I;
  readonly output: O;
}

export type ContractTree = { readonly [key: string]: ProcedureContract | ContractTree };

export const query = <L extends Level, I extends z.ZodType, O extends z.ZodType>(
  level: L,
  input: I,
  output: O,
  callers: Callers,
): ProcedureContract<I, O, L> => ({ __procedure: true, kind: 'query', level, callers, input, output });

export const mutation = <L extends Level, I extends z.ZodType, O extends z.ZodType>(
  level: L,
  input: I,
  output: O,
  callers: Callers,
): ProcedureContract<I, O, L> => ({ __procedure: true, kind: 'mutation', level, callers, input, output });

export const isProcedure = (value: unknown): value is ProcedureContract =>
  typeof value === 'object' && value !== null && (value as { __procedure?: unknown }).__procedure === true;
