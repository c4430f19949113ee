import type { z } from 'zod';
import { callTRPCProcedure, getTRPCErrorFromUnknown, getTRPCErrorShape, type AnyRouter } from '@trpc/server';
import {
  TRPCClientError,
  createTRPCUntypedClient,
  httpBatchLink,
  retryLink,
  type TRPCUntypedClient,
} from '@trpc/client';
import { isProcedure, type ContractTree, type Identity, type ProcedureContract, type ServiceName } from '@kg/contracts';
import type { InternalTokenSigner } from '@kg/tokens';
import { logUnexpectedError, type ErrorLogger } from './problem';
import { REQUEST_ID_HEADER, currentRequestId } from './request-context';
import { queryJson, type JsonAnswer } from './json-answer';
import { peerFetch } from './http-request';
import { isConnectFailure, type ReplicaSet } from './replicas';

/** A typed client for a service contract: one async function per procedure. */
export type ServiceClient<T extends ContractTree> = {
  [K in keyof T]: T[K] extends ProcedureContract<infer I, infer O>
    ? (input: z.input<I>) => Promise<z.output<O>>
    : T[K] extends ContractTree
      ? ServiceClient<T[K]>
      : never;
};

/** The queries of a contract, answered as the JSON text their service wrote (json-answer.ts). */
export type JsonClient<T extends ContractTree> = {
  [K in keyof T]: T[K] extends ProcedureContract<infer I, infer _O>
    ? (input: z.input<I>) => Promise<JsonAnswer>
    : T[K] extends ContractTree
      ? JsonClient<T[K]>
      : never;
};

/** Reaches one service, acting for an identity (or for no one, for service-level calls). */
export interface ServiceHandle<T extends ContractTree> {
  readonly service: string;
  as(identity: Identity | null): ServiceClient<T>;
}

/** A handle whose queries can also answer as JSON text (the handles `connectService` makes). */
export interface ForwardingHandle<T extends ContractTree> extends ServiceHandle<T> {
  /**
   * The same queries, answered as JSON text, serialised once where the answer is made and
   * checked there against the contract's output schema: for an edge that forwards the answer
   * as it is (the gateway's large graph views). In-process the answer is written once here;
   * over HTTP the peer's text is passed on, not parsed.
   */
  asJson(identity: Identity | null): JsonClient<T>;
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
  | { kind: 'http'; url: string; signer: InternalTokenSigner; timeoutMs?: number }
  /**
   * tRPC over HTTP to one of several replicas (`<replica>/trpc`), in the order the set gives
   * for the identity's tenant: a replica that refuses the connection is skipped (the call,
   * even a mutation, never reached it) and the next one is tried.
   */
  | { kind: 'replicated'; replicas: ReplicaSet; signer: InternalTokenSigner; timeoutMs?: number };

type RemoteTransport = Exclude<ServiceTransport, { kind: 'local' }>;

/**
 * The tRPC endpoints to try for one call, best first, and what to do when one could not be
 * connected to: one endpoint for `http`, the replicas' in their order for `replicated`.
 */
function endpoints(transport: RemoteTransport, identity: Identity | null): { urls: string[]; down(url: string): void } {
  if (transport.kind === 'http') return { urls: [transport.url], down: () => {} };
  const { replicas } = transport;
  return {
    urls: replicas.order(identity?.tenantId ?? null).map((base) => `${base.replace(/\/$/, '')}/trpc`),
    down: (url) => replicas.unreachable(url.slice(0, -'/trpc'.length)),
  };
}

/**
 * Runs `attempt` on each endpoint in turn while the previous one could not be connected to;
 * the last endpoint's failure (or any other failure) is the call's. `last` tells the attempt
 * whether a failure to connect may still be retried on the same endpoint (nothing after it).
 */
async function overEndpoints<R>(
  transport: RemoteTransport,
  identity: Identity | null,
  attempt: (url: string, last: boolean) => Promise<R>,
): Promise<R> {
  const { urls, down } = endpoints(transport, identity);
  for (let i = 0; ; i++) {
    const last = i >= urls.length - 1;
    try {
      return await attempt(urls[i]!, last);
    } catch (err) {
      if (last || !isConnectFailure(err)) throw err;
      down(urls[i]!);
    }
  }
}

type Untyped = TRPCUntypedClient<AnyRouter>;

/**
 * The procedures of a contract as a tree of async functions, built lazily: a call site reads
 * one or two levels of it per request, so only those are made (per identity, per request).
 * `call` returns what the callee answered; `checked` says whether that already passed the
 * contract's output schema in this process (the in-process link: the callee's procedure
 * checked it), or must be checked here (over HTTP: a peer's answer is parsed at this boundary).
 */
function proxy<T extends ContractTree>(contract: T, call: Call, checked: boolean, prefix = ''): ServiceClient<T> {
  return tree(contract, prefix, (name, node) =>
    checked
      ? (input: unknown) => call(name, node.kind, input)
      : async (input: unknown) => node.output.parse(await call(name, node.kind, input)),
  ) as ServiceClient<T>;
}

/** A contract's procedures as a tree of functions made on first use by `make`. */
function tree(
  contract: ContractTree,
  prefix: string,
  make: (name: string, node: ProcedureContract<z.ZodType, z.ZodType>) => unknown,
): unknown {
  const made = new Map<string, unknown>();
  return new Proxy(
    {},
    {
      get(_, key) {
        if (typeof key !== 'string' || !Object.hasOwn(contract, key)) return undefined;
        let out = made.get(key);
        if (out === undefined) {
          const node = contract[key]!;
          const name = prefix ? `${prefix}.${key}` : key;
          out = isProcedure(node) ? make(name, node) : tree(node, name, make);
          made.set(key, out);
        }
        return out;
      },
    },
  );
}

type Call = (name: string, kind: 'query' | 'mutation', input: unknown) => Promise<unknown>;

/**
 * In-process: the procedure runs through tRPC's own pipeline (caller allowlist, identity,
 * input and output validation, error mapping) and its answer is handed over as it is; a
 * failure reaches the caller as the same TRPCClientError, with the same problem data, that
 * the HTTP link raises — so callers never know which transport they used.
 */
function localCall(
  caller: ServiceName,
  transport: Extract<ServiceTransport, { kind: 'local' }>,
  identity: Identity | null,
): Call {
  return async (name, kind, input) => {
    const ctx = { caller, identity, requestId: currentRequestId() };
    try {
      return await callTRPCProcedure({
        router: transport.router,
        path: name,
        getRawInput: async () => input,
        ctx,
        type: kind,
        signal: undefined,
        batchIndex: 0,
      });
    } catch (cause) {
      const error = getTRPCErrorFromUnknown(cause);
      if (transport.logger) logUnexpectedError(transport.logger, { error, path: name, ctx });
      const shape = getTRPCErrorShape({
        config: transport.router._def._config,
        ctx,
        error,
        input,
        path: name,
        type: kind,
      });
      throw TRPCClientError.from({ error: shape }, { cause: error });
    }
  };
}

function httpClient(
  service: string,
  transport: RemoteTransport,
  url: string,
  /** Another endpoint follows this one: a connection refused goes there at once, not again here. */
  failOver: boolean,
  identity: Identity | null,
): Untyped {
  const timeoutMs = transport.timeoutMs ?? 10_000;
  return createTRPCUntypedClient({
    links: [
      // Queries are idempotent: retry them twice on transport failures (no problem data:
      // the peer was unreachable or timed out). Mutations are never retried.
      retryLink({
        retry: ({ op, error, attempts }) =>
          op.type === 'query' && !error.data && attempts <= 2 && !(failOver && isConnectFailure(error)),
        retryDelayMs: (attempt) => 100 * 2 ** attempt,
      }),
      httpBatchLink({
        url,
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
        fetch: peerFetch(timeoutMs),
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
): ForwardingHandle<T> {
  if (transport.kind !== 'local' && transport.signer.service !== caller)
    throw new Error(`${caller} cannot call ${service} with the signing key of ${transport.signer.service}`);
  return {
    service,
    as: (identity) => {
      if (transport.kind === 'local') return proxy(contract, localCall(caller, transport, identity), true);
      // One client per endpoint tried, made on first use (usually one per request).
      const clients = new Map<string, Untyped>();
      const client = (url: string, last: boolean) => {
        const key = `${last ? 1 : 0}${url}`;
        let untyped = clients.get(key);
        if (!untyped) clients.set(key, (untyped = httpClient(service, transport, url, !last, identity)));
        return untyped;
      };
      const call: Call = (name, kind, input) =>
        overEndpoints(transport, identity, (url, last) =>
          kind === 'query' ? client(url, last).query(name, input) : client(url, last).mutation(name, input),
        );
      return proxy(contract, call, false);
    },
    asJson: (identity) => {
      const local = transport.kind === 'local' ? localCall(caller, transport, identity) : null;
      return tree(contract, '', (name, node) => {
        if (node.kind !== 'query')
          throw new Error(`${service}.${name} is a mutation: only queries answer as JSON text`);
        if (local) return async (input: unknown) => JSON.stringify(await local(name, 'query', input)) as JsonAnswer;
        const remote = transport as RemoteTransport;
        return (input: unknown) =>
          overEndpoints(remote, identity, (url, last) =>
            queryJson(
              { url, service, signer: remote.signer, timeoutMs: remote.timeoutMs ?? 10_000, failOver: !last },
              identity,
              name,
              input,
            ),
          );
      }) as JsonClient<T>;
    },
  };
}
