import type { z } from 'zod';
import { ById, AppError } from '@kg/contracts';
import { defineRoute, type Method, type Route } from './route';
import type { GatewayPeers } from '../peers';

interface Pending {
  method: Method;
  path: string;
  operationId: string;
  summary: string;
  query?: z.ZodType;
  body?: z.ZodType;
  success?: number;
}

/** Operations whose features land in later releases: documented now, answering 501 once authenticated. */
export function pending(tag: string, service: keyof GatewayPeers, feature: string, ops: Pending[]): Route[] {
  return ops.map((op) =>
    defineRoute({
      method: op.method,
      path: op.path,
      operationId: op.operationId,
      summary: op.summary,
      tag,
      auth: 'required',
      service,
      ...(op.path.includes(':id') ? { params: ById } : {}),
      ...(op.query ? { query: op.query } : {}),
      ...(op.body ? { body: op.body } : {}),
      success: { status: op.success ?? 200, description: 'Not available yet: answers 501' },
      errors: [501],
      notImplemented: feature,
      handle: async () => {
        throw new AppError('not_implemented', `${feature} is not available yet in this release`);
      },
    }),
  );
}

/** Every documented operation has landed; `pending` stays for the next feature announced before it lands. */
export const unbuiltRoutes: Route[] = [];
