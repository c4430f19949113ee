import type { z } from 'zod';

/** Thrown at start-up when the environment does not satisfy a service's config schema. */
export class ConfigError extends Error {
  constructor(
    readonly service: string,
    readonly problems: string[],
  ) {
    super(`${service}: invalid configuration\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/**
 * Parses the environment once, at start-up, into a typed config object.
 * This is the only place in the codebase that reads `process.env`.
 */
export function loadConfig<S extends z.ZodType>(
  service: string,
  schema: S,
  source: Record<string, string | undefined> = process.env,
): z.infer<S> {
  const result = schema.safeParse(source);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => {
    const key = issue.path.join('.') || '(root)';
    const value = issue.path.length > 0 ? source[String(issue.path[0])] : undefined;
    return value === undefined ? `${key}: ${issue.message} (not set)` : `${key}: ${issue.message}`;
  });
  throw new ConfigError(service, problems);
}
