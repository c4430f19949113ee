import { authApi, capturesApi, graphApi, paraApi, searchApi } from '@kg/contracts';
import type { ForwardingHandle, ServiceHandle } from '@kg/trpc';

/** The services the gateway calls, each through a typed tRPC handle (in-process or HTTP). */
export interface GatewayPeers {
  auth: ServiceHandle<typeof authApi>;
  /** Its large views are forwarded as the JSON text graph wrote (`asJson`). */
  graph: ForwardingHandle<typeof graphApi>;
  para: ServiceHandle<typeof paraApi>;
  captures: ServiceHandle<typeof capturesApi>;
  search: ServiceHandle<typeof searchApi>;
}

export const PEER_CONTRACTS = {
  auth: authApi,
  graph: graphApi,
  para: paraApi,
  captures: capturesApi,
  search: searchApi,
} as const;
