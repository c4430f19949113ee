import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createLocalJWKSet, type JSONWebKeySet } from 'jose';
import { authApi, type Identity } from '@kg/contracts';
import { openDatabase } from '@kg/db';
import { createLogger } from '@kg/logger';
import { verifyAccessToken } from '@kg/tokens';
import { connectService, problemFromClientError } from '@kg/trpc';
import {
  authMigrations,
  createAuthModule,
  createOutboxTransport,
  loadOrCreateKeyMaterial,
  type AuthDeps,
} from './module';

export interface OutboxMail {
  to: string;
  subject: string;
  text: string;
  token: string;
  created_at: string;
}

/**
 * A test rig: the auth module on an in-memory PGlite, an outbox in a temp dir, a movable
 * clock, and the in-process client the one-process host uses.
 */
export async function createAuthRig(opts: Pick<AuthDeps, 'oidc' | 'oidcFetch' | 'accessTokenTtlSeconds'> = {}) {
  const dir = mkdtempSync(path.join(tmpdir(), 'kg-auth-test-'));
  const outbox = path.join(dir, 'outbox');
  const database = await openDatabase({ dataDir: null });
  await database.migrate(authMigrations);
  let clock = new Date();
  const module = await createAuthModule({
    database,
    logger: createLogger('auth-test', 'silent'),
    keys: await loadOrCreateKeyMaterial(dir),
    mail: createOutboxTransport(outbox),
    publicUrl: 'http://kg.test/',
    now: () => clock,
    ...opts,
  });
  const auth = connectService('gateway', 'auth', authApi, { kind: 'local', router: module.router });
  const anon = auth.as(null);

  const mails = (): OutboxMail[] =>
    (existsSync(outbox) ? readdirSync(outbox) : [])
      .filter((f) => f.endsWith('.json'))
      .sort()
      .map((f) => JSON.parse(readFileSync(path.join(outbox, f), 'utf8')) as OutboxMail);
  const lastMailTo = (email: string): OutboxMail => {
    const mine = mails().filter((m) => m.to === email);
    if (!mine.length) throw new Error(`no mail to ${email}`);
    return mine[mine.length - 1]!;
  };
  const claimsOf = async (accessToken: string) =>
    verifyAccessToken(accessToken, createLocalJWKSet((await anon.tokens.jwks({})) as JSONWebKeySet));

  const signIn = async (email: string) => {
    await anon.magicLink.request({ email });
    return anon.magicLink.verify({ token: lastMailTo(email.toLowerCase()).token });
  };
  /** Signs in and returns the identity the gateway would build from the access token. */
  const identity = async (email: string): Promise<Identity> => {
    const claims = await claimsOf((await signIn(email)).access_token);
    return { tenantId: claims.tenantId, subject: claims.subject, credential: { kind: 'jwt', id: claims.tokenId } };
  };

  return {
    database,
    db: database.db,
    auth,
    anon,
    outbox,
    mails,
    lastMailTo,
    claimsOf,
    advance(ms: number) {
      clock = new Date(clock.getTime() + ms);
    },
    signIn,
    identity,
    async close() {
      await database.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export type AuthRig = Awaited<ReturnType<typeof createAuthRig>>;

/** The HTTP status a call failed with (from the problem data of the tRPC error), or 200. */
export const statusOf = (call: Promise<unknown>): Promise<number | undefined> =>
  call.then(
    () => 200,
    (err: unknown) => problemFromClientError(err, 'auth')?.status,
  );
