import type { Identity } from '@kg/contracts';

/** What every procedure knows about its call: which service called, and for whom. */
export interface CallContext {
  caller: string;
  identity: Identity | null;
}

export interface TenantContext extends CallContext {
  identity: Identity;
}
