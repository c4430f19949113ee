import { Me } from '@kg/contracts';
import { defineRoute, ok, type Route } from './route';

/**
 * GET /auth/me (extension): who the credential acts for. It does nothing but authenticate,
 * so it measures the cost of authentication alone (bench:http) and lets a client check
 * its credential. The e-mail comes from the credential itself (the access token's claim,
 * the API key's verified principal), never from a further lookup.
 */
export const meRoutes: Route[] = [
  defineRoute({
    method: 'get',
    path: '/auth/me',
    operationId: 'getMe',
    summary: 'Who the credential acts for (only authenticates)',
    tag: 'Auth',
    auth: 'required',
    service: 'auth',
    success: { status: 200, description: 'The user, tenant and kind of credential', schema: Me },
    async handle(req) {
      const identity = req.identity!;
      return ok({
        user_id: identity.subject,
        tenant_id: identity.tenantId,
        email: identity.email ?? null,
        auth: identity.credential.kind === 'jwt' ? 'bearer' : 'api_key',
      });
    },
  }),
];
