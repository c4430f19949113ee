import { z } from 'zod';

export const Timestamp = z.iso
  .datetime({ offset: false })
  .meta({ description: 'ISO 8601 UTC timestamp', example: '2026-11-22T12:00:00.000Z' });

/**
 * What `String.prototype.trim` removes (ECMAScript WhiteSpace and LineTerminator), spelled
 * out rather than `\s` so that the pattern in the OpenAPI document means the same in every
 * regex dialect that reads it.
 */
const BLANK = '\\t\\n\\v\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff';
const NO_NUL = /^[^\u0000]*$/;
const NOT_BLANK = new RegExp(`[^${BLANK}\\u0000]`);

/** Refuses NUL (U+0000) in any string schema (`z.string()`, `z.url()`, …). */
export const refuseNul = <S extends { regex(pattern: RegExp, message: string): S }>(schema: S): S =>
  schema.regex(NO_NUL, 'must not contain NUL characters (\\u0000)');

/**
 * Every string a request carries. PostgreSQL cannot store NUL (U+0000), so it is refused
 * (400 naming the field) here, once, for every field. The limits are checked on the value
 * as sent, so the OpenAPI document (`maxLength`, `minLength`, `pattern`) states exactly the
 * rule the server applies. With `trim`, the value must also hold a non-blank character; it
 * is stored without its leading and trailing whitespace.
 */
export function text(opts: { max: number; min?: number; trim?: boolean }) {
  let s = z.string();
  if (opts.min !== undefined && !opts.trim) s = s.min(opts.min);
  s = refuseNul(s.max(opts.max));
  if (!opts.trim) return s;
  return s
    .regex(NOT_BLANK, 'must not be blank')
    .trim()
    .meta({ description: `Leading and trailing whitespace is removed; at most ${opts.max} characters as sent` });
}

/** A positive integer query parameter; strings are coerced, out-of-range values rejected (never clamped). */
export const queryInt = (min: number, max: number) => z.coerce.number().int().min(min).max(max);

/** The `:id` path parameter of every resource (and the `id` of internal calls). */
export const ById = z.object({ id: text({ min: 1, max: 64 }) });

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
