import type { z } from 'zod';
import { invalid } from '@kg/contracts';
import { zodFieldErrors } from '@kg/trpc';

/** Parses one part of a request with its zod schema; failures become 400 with field paths. */
export function parsePart<T>(schema: z.ZodType<T> | undefined, value: unknown, part: 'path' | 'query' | 'body'): T {
  if (!schema) return undefined as T;
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const errors = zodFieldErrors(result.error).map((e) => ({
    path: e.path === '(body)' ? part : `${part === 'body' ? '' : part + '.'}${e.path}`,
    message: e.message,
  }));
  throw invalid(`The request ${part === 'path' ? 'path' : part} failed validation`, errors);
}
