export type { CallContext, TenantContext } from './context';
export { router, serviceProcedure, tenantProcedure } from './init';
export { defineRouter, type Handlers, type ServiceRouter } from './define-router';
export { connectService, type ServiceClient, type ServiceHandle, type ServiceTransport } from './client';
export { problemFromClientError } from './client-error';
export { problemFromAppError, problemFromTRPCError, zodFieldErrors, type ProblemData } from './problem';
