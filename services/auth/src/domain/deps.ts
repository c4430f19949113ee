import type { Db } from '@kg/db';
import type { Logger } from '@kg/logger';
import type { KeyMaterial } from '../keys/material';
import type { MailTransport } from '../mail/transport';
import type { OidcProvider } from '../oidc/provider';

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
  /** Called after a commit that wrote events into the outbox (api_key.revoked): publish soon. */
  afterCommit?: () => void;
  /** Lifetime of the access tokens it issues (ACCESS_TOKEN_TTL_SECONDS; default 900). */
  accessTokenTtlSeconds?: number;
  /** The configured OpenID provider, or null (OIDC sign-in answers 404). */
  oidc?: OidcProvider | null;
}

export const MAGIC_LINK_TTL_MS = 15 * 60 * 1000;
export const REFRESH_TOKEN_TTL_MS = 30 * 24 * 60 * 60 * 1000;
/**
 * Grace window of a rotated refresh token (docs/API.md "Sign-in"): presented again within
 * 10 s of its rotation, while none of its successors has been used, it is rotated once more
 * instead of revoking the family. Two clients of one session (two CLI processes) that refresh
 * at the same moment both stay signed in; the window is long enough for a slow second request
 * and short enough that a copy replayed later (a thief) still revokes the family.
 */
export const REFRESH_GRACE_MS = 10_000;
