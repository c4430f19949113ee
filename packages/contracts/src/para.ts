import { z } from 'zod';
import { ParaItemId, TenantId, idSchema } from './ids';
import { Timestamp, text } from './common';
import { ParaCategory } from './graph-views';

export const ParaStatus = z.enum(['active', 'completed', 'archived']).meta({ id: 'ParaStatus' });
export type ParaStatus = z.infer<typeof ParaStatus>;

const Label = text({ max: 200, trim: true });
const Description = text({ max: 5000 });

export const ParaItem = z
  .object({
    id: ParaItemId,
    category: ParaCategory,
    label: z.string(),
    description: z.string(),
    slug: z.string(),
    status: ParaStatus,
    created_at: Timestamp,
    updated_at: Timestamp,
    completed_at: Timestamp.nullable(),
    archived_at: Timestamp.nullable(),
  })
  .meta({ id: 'ParaItem' });
export type ParaItem = z.infer<typeof ParaItem>;

export const CreateParaItemInput = z
  .object({
    category: ParaCategory,
    label: Label,
    description: Description.optional(),
  })
  .strict()
  .meta({ id: 'CreateParaItemInput' });
export type CreateParaItemInput = z.infer<typeof CreateParaItemInput>;

/**
 * The item of this label in this category, made when the tenant has no active one (graph asks
 * for a bookmark import's folders: docs/API.md "Imports"). The label matches whatever its case
 * and surrounding whitespace; concurrent calls for one label make one item.
 */
export const EnsureParaItemInput = z.object({ category: ParaCategory, label: Label });
export type EnsureParaItemInput = z.infer<typeof EnsureParaItemInput>;
export const EnsuredParaItem = z.object({
  item: ParaItem,
  /** true when this call made it. */
  created: z.boolean(),
});

export const UpdateParaItemInput = z
  .object({
    label: Label.optional(),
    description: Description.optional(),
    status: z
      .enum(['active', 'archived'])
      .optional()
      .meta({ description: '`archived` archives (like POST /archive); `active` unarchives or undoes completion' }),
    regenerate_slug: z.boolean().optional().meta({
      description:
        'Extension: the slug stays stable when the label changes; `true` regenerates it from the (new) label',
    }),
  })
  .strict()
  .meta({ id: 'UpdateParaItemInput' });
export type UpdateParaItemInput = z.infer<typeof UpdateParaItemInput>;

export const ListParaQuery = z
  .object({
    category: ParaCategory.optional(),
    status: ParaStatus.optional().meta({ description: '`active`, `archived`, or (extension) `completed`' }),
  })
  .strict();
export type ListParaQuery = z.infer<typeof ListParaQuery>;

export const ParaItemList = z.object({ data: z.array(ParaItem) }).meta({ id: 'ParaItemList' });

export const ParaTree = z
  .object({ categories: z.array(z.object({ category: ParaCategory, items: z.array(ParaItem) })) })
  .meta({ id: 'ParaTree' });

export const ParaJobId = idSchema('paraJob').meta({ description: 'Reclassification job identifier, e.g. job_01jd…' });

/**
 * A background reclassification job: scores orphan nodes against PARA items and assigns
 * the ones at or above the threshold. `queued` orphans were counted when it started;
 * `done` have been scored; `assigned` were assigned by it.
 */
export const ParaJob = z
  .object({
    id: ParaJobId,
    kind: z.enum(['item_created', 'match', 'rescan']),
    para_item_id: ParaItemId.nullable().meta({ description: 'The item matched; null for a rescan' }),
    status: z.enum(['queued', 'running', 'done', 'failed']),
    queued: z.number().int(),
    done: z.number().int(),
    assigned: z.number().int(),
    created_at: Timestamp,
    updated_at: Timestamp,
    finished_at: Timestamp.nullable(),
  })
  .meta({ id: 'ParaJob' });
export type ParaJob = z.infer<typeof ParaJob>;

export const RescanAccepted = z
  .object({
    queued: z.number().int().meta({ description: 'Orphan nodes queued for reclassification' }),
    job_id: ParaJobId.meta({ description: 'Extension: follow it at GET /para/jobs/{id}' }),
  })
  .meta({ id: 'RescanAccepted' });

/** `kg.para.jobs.v1`: a job to run, keyed by tenant; the consumer resumes it from its record. */
export const ParaJobEvent = z.object({
  id: z.string(),
  type: z.literal('job.queued'),
  tenant_id: TenantId,
  occurred_at: z.iso.datetime(),
  data: z.object({ job_id: ParaJobId }),
});
export type ParaJobEvent = z.infer<typeof ParaJobEvent>;
