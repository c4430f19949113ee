export type { CallContext, TenantContext } from './context';
export { router } from './init';
export { defineRouter, type Handlers, type ServiceRouter } from './define-router';
export {
  connectService,
  type ForwardingHandle,
  type JsonClient,
  type ServiceClient,
  type ServiceHandle,
  type ServiceTransport,
} from './client';
export type { JsonAnswer } from './json-answer';
export { createReplicaSet, rendezvousOrder, isConnectFailure, type ReplicaSet, type Routing } from './replicas';
export { dnsReplicas, type DnsReplicas, type Lookup } from './dns-replicas';
export { problemFromClientError } from './client-error';
export {
  isUnexpectedError,
  logUnexpectedError,
  problemFromAppError,
  problemFromTRPCError,
  zodFieldErrors,
  type ErrorLogger,
  type ProblemData,
} from './problem';
export { REQUEST_ID_HEADER, cleanRequestId, currentRequestId, withRequestId } from './request-context';
