import { fileURLToPath } from 'node:url';
import { createOutboxRelay, type EventBus } from '@kg/bus';
import type { Database } from '@kg/db';
import type { Logger } from '@kg/logger';
import type { ServiceModule } from '@kg/service-kit';
import type { KeyMaterial } from './keys/material';
import type { MailTransport } from './mail/transport';
import { createAuthRouter } from './router';
import { createAuthPruneJob } from './domain/prune';
import { outbox } from './store/schema';
import type { OidcSettings } from './oidc/config';
import { createOidcProvider, type OidcProviderOptions } from './oidc/provider';
import { oidcCallbackUrl } from './oidc/sign-in';

export { loadOrCreateKeyMaterial } from './keys/files';
export { keyMaterialFromSecrets, type KeyMaterial } from './keys/material';
export { createOutboxTransport } from './mail/outbox';
export { createSmtpTransport } from './mail/smtp';
export type { MailMessage, MailTransport } from './mail/transport';
export { checkOidc, oidcEnv, oidcSettings, type OidcSettings } from './oidc/config';

export const authMigrations = {
  migrationsFolder: fileURLToPath(new URL('../drizzle', import.meta.url)),
  schema: 'auth',
};

export const DEFAULT_PUBLIC_URL = 'http://localhost:8080';

export interface AuthDeps {
  database: Database;
  logger: Logger;
  keys: KeyMaterial;
  mail: MailTransport;
  /** Base address of the public API, for the link in sign-in mail (default http://localhost:8080). */
  publicUrl?: string;
  /** The clock (tests move it); default `() => new Date()`. */
  now?: () => Date;
  /** Between two prunes of expired magic links and refresh tokens (default one hour). */
  pruneIntervalMs?: number;
  /** Lifetime of issued access tokens in seconds (default 900). */
  accessTokenTtlSeconds?: number;
  /**
   * Where api_key.revoked and session.revoked events go (through the outbox); the gateways end
   * the event streams of those credentials and drop revoked keys from
   * their caches. Both modes pass one; without it (unit tests) events stay in the outbox.
   */
  bus?: EventBus;
  outboxPollMs?: number;
  /** OpenID Connect sign-in (OIDC_ISSUER, OIDC_CLIENT_ID, OIDC_CLIENT_SECRET); null/absent: off. */
  oidc?: OidcSettings | null;
  /** Tests only: a fetch that sees every call to the OpenID provider. */
  oidcFetch?: OidcProviderOptions['fetch'];
}

/** The auth service as a mountable module: sign-in, tokens, API keys, and the prune job of expired sign-in records. */
export async function createAuthModule(deps: AuthDeps): Promise<ServiceModule> {
  const prune = createAuthPruneJob({
    db: deps.database.db,
    logger: deps.logger,
    intervalMs: deps.pruneIntervalMs ?? 3600_000,
  });
  const relay = deps.bus
    ? createOutboxRelay({
        db: deps.database.db,
        table: outbox,
        bus: deps.bus,
        logger: deps.logger,
        ...(deps.outboxPollMs ? { pollMs: deps.outboxPollMs } : {}),
      })
    : null;
  const publicUrl = deps.publicUrl ?? DEFAULT_PUBLIC_URL;
  const oidc = deps.oidc
    ? createOidcProvider({
        settings: deps.oidc,
        callbackUrl: oidcCallbackUrl(publicUrl),
        logger: deps.logger,
        ...(deps.oidcFetch ? { fetch: deps.oidcFetch } : {}),
      })
    : null;
  const router = createAuthRouter({
    db: deps.database.db,
    logger: deps.logger,
    keys: deps.keys,
    mail: deps.mail,
    publicUrl,
    oidc,
    now: deps.now ?? (() => new Date()),
    lastUsedWrites: new Map(),
    afterCommit: () => relay?.wake(),
    ...(deps.accessTokenTtlSeconds ? { accessTokenTtlSeconds: deps.accessTokenTtlSeconds } : {}),
  });
  return {
    name: 'auth',
    router,
    start: async () => {
      prune.start();
      relay?.start();
    },
    stop: async () => {
      await prune.stop();
      await relay?.stop();
    },
    ready: () => deps.database.ping(),
  };
}
