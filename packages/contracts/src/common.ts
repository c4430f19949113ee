import { z } from 'zod';

export const Timestamp = z.iso
  .datetime({ offset: false })
  .meta({ description: 'ISO 8601 UTC timestamp', example: '2026-11-22T12:00:00.000Z' });

/** A positive integer query parameter; strings are coerced, out-of-range values rejected (never clamped). */
export const queryInt = (min: number, max: number) => z.coerce.number().int().min(min).max(max);

export const queryBool = z.enum(['true', 'false']).transform((v) => v === 'true');

export const PageQuery = z.object({
  page: queryInt(1, 1_000_000).default(1).meta({ description: 'Page number, from 1' }),
  per_page: queryInt(1, 100).default(20).meta({ description: 'Items per page, 1 to 100' }),
});

export const pageOf = <T extends z.ZodType>(item: T) =>
  z.object({ data: z.array(item), total: z.number().int(), page: z.number().int(), per_page: z.number().int() });

export const listOf = <T extends z.ZodType>(item: T) => z.object({ data: z.array(item) });

export const Problem = z
  .object({
    type: z.string().meta({ example: 'https://kg.dev/problems/validation' }),
    title: z.string(),
    status: z.number().int(),
    detail: z.string().optional(),
    instance: z.string().optional(),
    errors: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
  })
  .meta({ id: 'Problem', description: 'RFC 9457 problem details' });
export type Problem = z.infer<typeof Problem>;
