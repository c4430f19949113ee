import { AppError, type TokenPair } from '@kg/contracts';
import type { DbOrTx } from '@kg/db';
import type { Deps } from '../domain/deps';
import { issueTokenPair } from '../domain/sessions';
import {
  createUser,
  dropUser,
  linkIdentity,
  userByEmail,
  userOfIdentity,
  type SignedInUser,
} from '../store/identities';
import type { OidcPerson, OidcProvider } from './provider';

/** The path the provider redirects to, under PUBLIC_URL (registered at the provider as the redirect URI). */
export const OIDC_CALLBACK_PATH = '/api/v1/auth/oidc/callback';

export const oidcCallbackUrl = (publicUrl: string) => `${publicUrl.replace(/\/+$/, '')}${OIDC_CALLBACK_PATH}`;

const provider = (deps: Deps): OidcProvider => {
  if (!deps.oidc) throw new AppError('not_found', 'OpenID Connect sign-in is not configured on this server');
  return deps.oidc;
};

export const oidcStatus = (deps: Deps) => ({ enabled: !!deps.oidc, issuer: deps.oidc?.issuer ?? null });

export const oidcAuthorizationUrl = (deps: Deps, p: { state: string; nonce: string; codeChallenge: string }) =>
  provider(deps).authorizationUrl(p);

/** Refused when an unverified address would join the person who already signs in with it. */
export const EMAIL_NOT_VERIFIED =
  'An account with this e-mail address exists, and the OpenID provider has not verified the address; verify it at the provider or sign in with a magic link';

/**
 * The person an OpenID identity signs in as. Known (issuer, subject): its user. Otherwise
 * an address the provider verified joins the user of that address (known from magic-link
 * sign-in) or starts a new one; an unverified address never joins anyone (403 when the
 * address is taken) and is not stored, so a later magic link cannot join this person either.
 */
async function personOf(tx: DbOrTx, person: OidcPerson): Promise<SignedInUser> {
  const known = await userOfIdentity(tx, person.issuer, person.subject);
  if (known) return known;
  const email = person.email && person.emailVerified ? person.email : null;
  if (person.email && !email && (await userByEmail(tx, person.email)))
    throw new AppError('forbidden', EMAIL_NOT_VERIFIED);
  let owner = email ? await userByEmail(tx, email) : null;
  let created = false;
  if (!owner) {
    owner = await createUser(tx, email);
    created = !!owner;
    // null: a concurrent sign-in created the user of this verified address first.
    owner ??= await userByEmail(tx, email!);
  }
  if (!owner) throw new Error('user of a conflicting email not found');
  if (await linkIdentity(tx, person.issuer, person.subject, owner)) return owner;
  // A concurrent first sign-in of the same identity won: drop the user this one created.
  if (created) await dropUser(tx, owner);
  const winner = await userOfIdentity(tx, person.issuer, person.subject);
  if (!winner) throw new Error('user of a conflicting identity not found');
  return winner;
}

/**
 * Completes a pending OpenID login: the provider's code redeemed with the login's PKCE
 * verifier, the ID token verified, the person found or created, and our own token pair
 * issued exactly as after a magic link (a new refresh family).
 */
export async function completeOidcSignIn(
  deps: Deps,
  p: { callbackQuery: string; state: string; nonce: string; codeVerifier: string },
): Promise<TokenPair> {
  // openid-client has checked the ID token's issuer against the discovered one, and its audience, expiry and nonce.
  const person = await provider(deps).exchange(p);
  return deps.db.transaction(async (tx) => issueTokenPair(deps, tx, await personOf(tx, person)));
}
