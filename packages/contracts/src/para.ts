import { z } from 'zod';
import { ParaItemId } from './ids';
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
