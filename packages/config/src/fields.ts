import { z } from 'zod';

/** Reusable env-var field parsers: every env value arrives as a string. */
export const port = (fallback: number) => z.coerce.number().int().min(0).max(65535).default(fallback);
export const positiveInt = (fallback: number) => z.coerce.number().int().positive().default(fallback);
export const url = () => z.url();
export const bool = (fallback: boolean) =>
  z
    .enum(['true', 'false', '1', '0', 'yes', 'no'])
    .default(fallback ? 'true' : 'false')
    .transform((v) => v === 'true' || v === '1' || v === 'yes');
export const list = () =>
  z
    .string()
    .default('')
    .transform((v) =>
      v
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    );
export const logLevel = () => z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info');
export const secret = (minLength = 32) => z.string().min(minLength, `must be at least ${minLength} characters`);

/** Env every standalone service process reads (services extend it with their own fields). */
export const serviceBase = {
  PORT: port(3000),
  HOST: z.string().default('0.0.0.0'),
  LOG_LEVEL: logLevel(),
  DATABASE_URL: z.url().refine((u) => u.startsWith('postgres'), 'must be a postgres:// URL'),
  INTERNAL_TOKEN_SECRET: secret(32),
};

/** Comma-separated Kafka bootstrap servers, required by services that publish or consume events. */
export const kafkaBrokers = () =>
  z
    .string()
    .min(1)
    .transform((v) =>
      v
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    );
