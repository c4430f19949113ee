import type { Db } from '@kg/db';
import type { Logger } from '@kg/logger';
import type { KeyMaterial } from './keys';
import type { MailTransport } from './mail';

/** What the auth domain needs; `now` is injectable so expiry rules can be tested. */
export interface AuthContext {
  db: Db;
  logger: Logger;
  keys: KeyMaterial;
  mail: MailTransport;
  publicUrl: string;
  now: () => Date;
  /** Last write of `last_used_at` per key in this process: verification needs no write per request. */
  lastTouched: Map<string, number>;
}

export const MAGIC_LINK_TTL_MS = 15 * 60 * 1000;
export const REFRESH_TTL_MS = 30 * 24 * 60 * 60 * 1000;
/** `last_used_at` granularity: at most one write per key per minute. */
export const LAST_USED_GRANULARITY_MS = 60 * 1000;
