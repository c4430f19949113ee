import { pino, type Logger, type LoggerOptions } from 'pino';

export type { Logger };

/**
 * Paths that may carry credentials. pino replaces them before a line is written,
 * so no token, API key, magic-link token or pepper reaches a log.
 */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-internal-token"]',
  'headers.authorization',
  'authorization',
  'token',
  'access_token',
  'refresh_token',
  'key',
  'secret',
  'pepper',
  'password',
  '*.token',
  '*.access_token',
  '*.refresh_token',
  '*.key',
  '*.secret',
  '*.pepper',
  '*.password',
];

export function createLogger(name: string, level: LoggerOptions['level'] = 'info'): Logger {
  return pino({
    name,
    level,
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    base: { service: name },
    timestamp: pino.stdTimeFunctions.isoTime,
  });
}
