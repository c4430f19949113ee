import { fileURLToPath } from 'node:url';
import type { Database } from '@kg/db';
import type { Logger } from '@kg/logger';
import type { ServiceModule } from '@kg/service-kit';
import type { KeyMaterial } from './domain/keys';
import type { MailTransport } from './domain/mail';
import { createAuthRouter } from './router';

export { loadOrCreateKeyMaterial, keyMaterialFromSecrets, type KeyMaterial } from './domain/keys';
export { createOutboxTransport, createSmtpTransport, type MailTransport, type MailMessage } from './domain/mail';

export const authMigrations = {
  migrationsFolder: fileURLToPath(new URL('../drizzle', import.meta.url)),
  schema: 'auth',
};

export interface AuthDeps {
  database: Database;
  logger: Logger;
  keys: KeyMaterial;
  mail: MailTransport;
  /** Base address used in the sign-in link of the mail. */
  publicUrl: string;
  now?: () => Date;
}

/** The auth service as a mountable module. */
export async function createAuthModule(deps: AuthDeps): Promise<ServiceModule> {
  const ctx = {
    db: deps.database.db,
    logger: deps.logger,
    keys: deps.keys,
    mail: deps.mail,
    publicUrl: deps.publicUrl,
    now: deps.now ?? (() => new Date()),
    lastTouched: new Map<string, number>(),
  };
  return {
    name: 'auth',
    router: createAuthRouter(ctx),
    start: async () => {},
    stop: async () => {},
    ready: () => deps.database.ping(),
  };
}
