import { z } from 'zod';
import { ParaItemId } from './ids';
import { Timestamp } from './common';
import { ParaCategory } from './graph-views';

export const ParaStatus = z.enum(['active', 'completed', 'archived']).meta({ id: 'ParaStatus' });

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
    label: z.string().trim().min(1).max(200),
    description: z.string().max(5000).optional(),
  })
  .strict()
  .meta({ id: 'CreateParaItemInput' });

export const UpdateParaItemInput = z
  .object({
    label: z.string().trim().min(1).max(200).optional(),
    description: z.string().max(5000).optional(),
    status: z.enum(['active', 'archived']).optional(),
  })
  .strict()
  .meta({ id: 'UpdateParaItemInput' });

export const ListParaQuery = z
  .object({ category: ParaCategory.optional(), status: z.enum(['active', 'archived']).optional() })
  .strict();
