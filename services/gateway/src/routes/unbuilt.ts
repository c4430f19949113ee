import type { z } from 'zod';
import {
  ById,
  AppError,
  ContextRequest,
  CreateCaptureInput,
  ListCapturesQuery,
  SuggestionsQuery,
  CheckCaptureQuery,
} from '@kg/contracts';
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
function pending(tag: string, service: keyof GatewayPeers, feature: string, ops: Pending[]): Route[] {
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

const captures = pending('Captures', 'captures', 'Captures', [
  {
    method: 'post',
    path: '/captures',
    operationId: 'createCapture',
    summary: 'Submit a capture',
    body: CreateCaptureInput,
    success: 201,
  },
  {
    method: 'post',
    path: '/captures/upload',
    operationId: 'uploadCapture',
    summary: 'Upload a file as a capture',
    success: 201,
  },
  {
    method: 'get',
    path: '/captures/check',
    operationId: 'checkCapturedUrl',
    summary: 'Was this URL captured?',
    query: CheckCaptureQuery,
  },
  { method: 'get', path: '/captures', operationId: 'listCaptures', summary: 'List captures', query: ListCapturesQuery },
  { method: 'get', path: '/captures/:id', operationId: 'getCapture', summary: 'Capture details' },
  {
    method: 'get',
    path: '/captures/:id/content',
    operationId: 'getCaptureContent',
    summary: 'Raw or processed content',
  },
  { method: 'post', path: '/captures/:id/retry', operationId: 'retryCapture', summary: 'Re-queue a failed capture' },
  {
    method: 'post',
    path: '/captures/:id/reingest',
    operationId: 'reingestCapture',
    summary: 'Reprocess through the whole pipeline',
  },
  { method: 'post', path: '/captures/:id/archive', operationId: 'archiveCapture', summary: 'Archive a capture' },
  { method: 'post', path: '/captures/:id/unarchive', operationId: 'unarchiveCapture', summary: 'Unarchive a capture' },
  { method: 'post', path: '/captures/:id/dismiss', operationId: 'dismissCapture', summary: 'Dismiss a capture' },
  { method: 'delete', path: '/captures/:id', operationId: 'deleteCapture', summary: 'Delete a capture' },
  { method: 'get', path: '/captures/:id/activity', operationId: 'getCaptureActivity', summary: 'Activity timeline' },
  { method: 'get', path: '/captures/:id/provenance', operationId: 'getCaptureProvenance', summary: 'Processing chain' },
]);

const search = pending('Search', 'search', 'Context and link suggestions', [
  {
    method: 'post',
    path: '/context',
    operationId: 'getContext',
    summary: 'Ranked context nodes for a session',
    body: ContextRequest,
  },
  {
    method: 'get',
    path: '/links/suggestions',
    operationId: 'getLinkSuggestions',
    summary: 'Link suggestions for a text',
    query: SuggestionsQuery,
  },
]);

export const unbuiltRoutes: Route[] = [...captures, ...search];
