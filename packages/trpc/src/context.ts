import type { Identity } from '@kg/contracts';

/** What every procedure knows about its call: which service called, and for whom. */
export interface CallContext {
  caller: string;
  identity: Identity | null;
  /** The public request this call serves (the gateway's X-Request-Id), for log lines. */
  requestId?: string;
}

export interface TenantContext extends CallContext {
  identity: Identity;
}
