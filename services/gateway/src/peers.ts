import { authApi, graphApi, paraApi, searchApi, serviceInfoApi } from '@kg/contracts';
import type { ServiceHandle } from '@kg/trpc';

/** The services the gateway calls, each through a typed tRPC handle (in-process or HTTP). */
export interface GatewayPeers {
  auth: ServiceHandle<typeof authApi>;
  graph: ServiceHandle<typeof graphApi>;
  para: ServiceHandle<typeof paraApi>;
  captures: ServiceHandle<typeof serviceInfoApi>;
  search: ServiceHandle<typeof searchApi>;
}

export const PEER_CONTRACTS = {
  auth: authApi,
  graph: graphApi,
  para: paraApi,
  captures: serviceInfoApi,
  search: searchApi,
} as const;
