import type { Db } from '@kg/db';
import type { Logger } from '@kg/logger';
import type { KeyMaterial } from '../keys/material';
import type { MailTransport } from '../mail/transport';

/** What the auth domain works with. `now` is injectable so expiry rules can be tested. */
export interface Deps {
  db: Db;
  logger: Logger;
  keys: KeyMaterial;
  mail: MailTransport;
  /** Base address of the public API, for the link in sign-in mail. */
  publicUrl: string;
  now: () => Date;
  /** API key id → epoch ms of this process's last `last_used_at` write (see api-keys.ts). */
  lastUsedWrites: Map<string, number>;
}

export const MAGIC_LINK_TTL_MS = 15 * 60 * 1000;
export const REFRESH_TOKEN_TTL_MS = 30 * 24 * 60 * 60 * 1000;
