import type { z } from 'zod';
import type { AnyRouter } from '@trpc/server';
import { createTRPCUntypedClient, httpBatchLink, localLink, retryLink, type TRPCUntypedClient } from '@trpc/client';
import { isProcedure, type ContractTree, type Identity, type ProcedureContract, type ServiceName } from '@kg/contracts';
import type { InternalTokenSigner } from '@kg/tokens';
import { logUnexpectedError, type ErrorLogger } from './problem';
import { REQUEST_ID_HEADER, currentRequestId } from './request-context';

/** A typed client for a service contract: one async function per procedure. */
export type ServiceClient<T extends ContractTree> = {
  [K in keyof T]: T[K] extends ProcedureContract<infer I, infer O>
    ? (input: z.input<I>) => Promise<z.output<O>>
    : T[K] extends ContractTree
      ? ServiceClient<T[K]>
      : never;
};

/** Reaches one service, acting for an identity (or for no one, for service-level calls). */
export interface ServiceHandle<T extends ContractTree> {
  readonly service: string;
  as(identity: Identity | null): ServiceClient<T>;
}

/**
 * How to reach a service: in-process (one-process host) or tRPC over HTTP (distributed),
 * where each call carries a token the caller signs with its own key.
 */
export type ServiceTransport =
  | {
      kind: 'local';
      router: AnyRouter;
      /** The callee's logger: its unexpected errors are logged there. */ logger?: ErrorLogger;
    }
  | { kind: 'http'; url: string; signer: InternalTokenSigner; timeoutMs?: number };

type Untyped = TRPCUntypedClient<AnyRouter>;

function proxy<T extends ContractTree>(contract: T, untyped: Untyped, prefix: string[] = []): ServiceClient<T> {
  const out: Record<string, unknown> = {};
  for (const [key, node] of Object.entries(contract)) {
    const path = [...prefix, key];
    if (isProcedure(node)) {
      const name = path.join('.');
      out[key] = async (input: unknown) => {
        const result = node.kind === 'query' ? await untyped.query(name, input) : await untyped.mutation(name, input);
        return node.output.parse(result);
      };
    } else {
      out[key] = proxy(node, untyped, path);
    }
  }
  return out as ServiceClient<T>;
}

function untypedClient(
  caller: ServiceName,
  service: string,
  transport: ServiceTransport,
  identity: Identity | null,
): Untyped {
  if (transport.kind === 'local') {
    return createTRPCUntypedClient({
      links: [
        localLink({
          router: transport.router,
          createContext: async () => ({ caller, identity, requestId: currentRequestId() }),
          onError: (opts) => {
            if (transport.logger) logUnexpectedError(transport.logger, opts);
          },
        }),
      ],
    });
  }
  const timeoutMs = transport.timeoutMs ?? 10_000;
  return createTRPCUntypedClient({
    links: [
      // Queries are idempotent: retry them twice on transport failures (no problem data:
      // the peer was unreachable or timed out). Mutations are never retried.
      retryLink({
        retry: ({ op, error, attempts }) => op.type === 'query' && !error.data && attempts <= 2,
        retryDelayMs: (attempt) => 100 * 2 ** attempt,
      }),
      httpBatchLink({
        url: transport.url,
        // Queries travel as POST too: their input (a 10,000-character text for link suggestions) can
        // outgrow what an HTTP server accepts in a URL (Node refuses request heads over 16 KiB with 431).
        methodOverride: 'POST',
        headers: async () => {
          const requestId = currentRequestId();
          return {
            'x-internal-token': await transport.signer.sign(service, identity),
            ...(requestId ? { [REQUEST_ID_HEADER]: requestId } : {}),
          };
        },
        fetch: (url, init) => fetch(url, { ...(init as RequestInit), signal: AbortSignal.timeout(timeoutMs) }),
      }),
    ],
  });
}

/**
 * Creates the handle through which `caller` reaches `service`; the callee's contract
 * decides whether `caller` may call each procedure. The same type serves
 * both modes, so service code never knows whether its peer is in-process or remote.
 */
export function connectService<T extends ContractTree>(
  caller: ServiceName,
  service: string,
  contract: T,
  transport: ServiceTransport,
): ServiceHandle<T> {
  if (transport.kind === 'http' && transport.signer.service !== caller)
    throw new Error(`${caller} cannot call ${service} with the signing key of ${transport.signer.service}`);
  return {
    service,
    as: (identity) => proxy(contract, untypedClient(caller, service, transport, identity)),
  };
}
