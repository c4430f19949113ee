import {
  AppError,
  ById,
  CreateParaItemInput,
  ListParaQuery,
  ParaItem,
  ParaItemList,
  ParaJob,
  ParaTree,
  RescanAccepted,
  UpdateParaItemInput,
} from '@kg/contracts';
import type { KvStore, RateLimiter } from '@kg/kv';
import type { GatewayHttpConfig } from '../config';
import { defineRoute, ok, type Route } from './route';

const base = { tag: 'PARA', auth: 'required', service: 'para' } as const;
const item = (description: string) => ({ status: 200, description, schema: ParaItem });

export interface ParaLimits {
  /** One rescan per tenant per 5 minutes (SPEC.md). */
  rescan: RateLimiter;
  /** Reclassification jobs per tenant per minute: item creation, match and rescan share it. */
  jobs: RateLimiter;
}

/** The PARA limits, counted in the shared kv store (Redis in the distributed mode). */
export const paraLimits = (kv: KvStore, config: GatewayHttpConfig): ParaLimits => ({
  rescan: kv.rateLimiter({ name: 'para-rescan', points: 1, durationSeconds: 300 }),
  jobs: kv.rateLimiter({ name: 'para-jobs', points: config.PARA_JOB_RATE_LIMIT_PER_MINUTE, durationSeconds: 60 }),
});

/**
 * PARA items: tree, list, CRUD, lifecycle and reclassification jobs (SPEC.md section 4).
 * Each operation that starts a scan of every orphan node (create, match, rescan) takes a
 * point of the tenant's job limit; `rescan` is also allowed once per tenant per 5 minutes.
 */
export const paraRoutes = (limits: ParaLimits): Route[] => [
  defineRoute({
    ...base,
    method: 'get',
    path: '/para/tree',
    operationId: 'getParaTree',
    summary: 'Every item grouped by category: projects, areas, resources',
    success: { status: 200, description: 'The PARA hierarchy', schema: ParaTree },
    async handle(req, peers) {
      return ok(await peers.para.as(req.identity).items.tree({}));
    },
  }),
  defineRoute({
    ...base,
    method: 'get',
    path: '/para',
    operationId: 'listParaItems',
    summary: 'List PARA items, optionally by category and status',
    query: ListParaQuery,
    success: { status: 200, description: 'Items by category, oldest first', schema: ParaItemList },
    async handle(req, peers) {
      return ok(await peers.para.as(req.identity).items.list(req.query));
    },
  }),
  defineRoute({
    ...base,
    method: 'post',
    path: '/para',
    operationId: 'createParaItem',
    summary:
      'Create a PARA item (slug from the label, unique per category: my-label, my-label-2, …); starts a reclassification job',
    body: CreateParaItemInput,
    success: { status: 201, description: 'Created', schema: ParaItem },
    errors: [429],
    async handle(req, peers) {
      await req.limit([[limits.jobs, req.identity!.tenantId]]);
      return ok(await peers.para.as(req.identity).items.create(req.body), 201);
    },
  }),
  defineRoute({
    ...base,
    method: 'get',
    path: '/para/:id',
    operationId: 'getParaItem',
    summary: 'Get a PARA item',
    params: ById,
    success: item('The item'),
    errors: [404],
    async handle(req, peers) {
      return ok(await peers.para.as(req.identity).items.get({ id: req.params.id }));
    },
  }),
  defineRoute({
    ...base,
    method: 'patch',
    path: '/para/:id',
    operationId: 'updateParaItem',
    summary: 'Update label, description or status (the slug stays unless regenerate_slug is true)',
    params: ById,
    body: UpdateParaItemInput,
    success: item('The updated item'),
    errors: [404, 409],
    async handle(req, peers) {
      return ok(await peers.para.as(req.identity).items.update({ id: req.params.id, patch: req.body }));
    },
  }),
  defineRoute({
    ...base,
    method: 'post',
    path: '/para/:id/complete',
    operationId: 'completeProject',
    summary: 'Mark a project completed (409 for areas, resources and archived projects)',
    params: ById,
    success: item('The completed project'),
    errors: [404, 409],
    async handle(req, peers) {
      return ok(await peers.para.as(req.identity).items.complete({ id: req.params.id }));
    },
  }),
  defineRoute({
    ...base,
    method: 'post',
    path: '/para/:id/undo-complete',
    operationId: 'undoCompleteProject',
    summary: 'Revert a completed project to active (409 for areas, resources and archived projects)',
    params: ById,
    success: item('The active project'),
    errors: [404, 409],
    async handle(req, peers) {
      return ok(await peers.para.as(req.identity).items.undoComplete({ id: req.params.id }));
    },
  }),
  defineRoute({
    ...base,
    method: 'post',
    path: '/para/:id/archive',
    operationId: 'archiveParaItem',
    summary: 'Archive an item and its node associations (idempotent)',
    params: ById,
    success: item('The archived item'),
    errors: [404],
    async handle(req, peers) {
      return ok(await peers.para.as(req.identity).items.archive({ id: req.params.id }));
    },
  }),
  defineRoute({
    ...base,
    method: 'post',
    path: '/para/:id/unarchive',
    operationId: 'unarchiveParaItem',
    summary: 'Restore an item to its status before archiving, and the associations archiving archived (idempotent)',
    params: ById,
    success: item('The restored item'),
    errors: [404],
    async handle(req, peers) {
      return ok(await peers.para.as(req.identity).items.unarchive({ id: req.params.id }));
    },
  }),
  defineRoute({
    ...base,
    method: 'post',
    path: '/para/rescan',
    operationId: 'rescanPara',
    summary: 'Re-classify every orphan node against the active items (once per 5 minutes per tenant)',
    success: { status: 202, description: 'Queued: the count of orphan nodes and the job', schema: RescanAccepted },
    errors: [429],
    async handle(req, peers) {
      const tenantId = req.identity!.tenantId;
      await req.limit([
        [limits.jobs, tenantId],
        [limits.rescan, tenantId],
      ]);
      return ok(await peers.para.as(req.identity).rescan({}), 202);
    },
  }),
  defineRoute({
    ...base,
    method: 'post',
    path: '/para/:id/match',
    operationId: 'matchParaItem',
    summary: 'Start a job that assigns matching orphan nodes to this item (409 unless the item is active)',
    params: ById,
    success: { status: 202, description: 'The job, queued', schema: ParaJob },
    errors: [404, 409, 429],
    async handle(req, peers) {
      await req.limit([[limits.jobs, req.identity!.tenantId]]);
      return ok(await peers.para.as(req.identity).items.match({ id: req.params.id }), 202);
    },
  }),
  defineRoute({
    ...base,
    method: 'get',
    path: '/para/jobs/:id',
    operationId: 'getParaJob',
    summary: 'Progress of a reclassification job (extension)',
    params: ById,
    success: { status: 200, description: 'The job', schema: ParaJob },
    errors: [404],
    async handle(req, peers) {
      return ok(await peers.para.as(req.identity).jobs.get({ id: req.params.id }));
    },
  }),
  /** DELETE /para/:id is never allowed: archive instead (SPEC.md). */
  defineRoute({
    ...base,
    method: 'delete',
    path: '/para/:id',
    operationId: 'deleteParaItem',
    summary: 'Always 410 Gone: archive PARA items instead',
    params: ById,
    success: { status: 410, description: 'Gone, always' },
    handle: async () => {
      throw new AppError('gone', 'PARA items cannot be deleted; archive them with POST /para/{id}/archive');
    },
  }),
];
