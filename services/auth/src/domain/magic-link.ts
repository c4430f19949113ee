import { SIGN_IN_PATH, unauthorized, unavailable, type TokenPair } from '@kg/contracts';
import { consumeMagicLink, insertMagicLink } from '../store/magic-links';
import { findOrCreateUser } from '../store/users';
import { MAGIC_LINK_TTL_MS, type Deps } from './deps';
import { randomSecret, sha256 } from './secrets';
import { issueTokenPair } from './sessions';

export const ACCEPTED_DETAIL =
  'If the address can receive mail, a sign-in link is on its way. It works once, for 15 minutes.';

/** The mail's link carries the token in the fragment (`#token=`), never in a query string a server would log. */
export function signInMail(publicUrl: string, token: string) {
  const link = `${publicUrl.replace(/\/+$/, '')}${SIGN_IN_PATH}#token=${encodeURIComponent(token)}`;
  return {
    subject: 'Your sign-in link',
    text: [
      'Sign in to your knowledge graph with this link:',
      '',
      link,
      '',
      'It works once and expires in 15 minutes. If you did not ask for it, ignore this mail.',
    ].join('\n'),
  };
}

/**
 * Stores the sha256 of a fresh single-use token (15 minutes) and mails the token. Every
 * address gets a link (the first sign-in creates the account), so the answer never tells
 * whether an email is known. A mail failure answers 503; the unused link just expires.
 */
export async function requestMagicLink(deps: Deps, email: string): Promise<void> {
  const token = randomSecret();
  const now = deps.now();
  await insertMagicLink(deps.db, {
    tokenHash: sha256(token),
    email,
    expiresAt: new Date(now.getTime() + MAGIC_LINK_TTL_MS),
    createdAt: now,
  });
  try {
    await deps.mail.send({ to: email, token, ...signInMail(deps.publicUrl, token) });
  } catch (err) {
    const code = (err as { code?: unknown } | null)?.code;
    deps.logger.error(
      { transport: deps.mail.kind, code: typeof code === 'string' ? code : undefined },
      'sign-in mail failed',
    );
    throw unavailable('The sign-in mail could not be sent; try again shortly');
  }
}

/**
 * Exchanges a token, once and within 15 minutes, for a token pair. The first sign-in of
 * an email creates its tenant and user. One transaction: if issuing fails, the link
 * stays unused.
 */
export function verifyMagicLink(deps: Deps, token: string): Promise<TokenPair> {
  return deps.db.transaction(async (tx) => {
    const email = await consumeMagicLink(tx, sha256(token), deps.now());
    if (!email) throw unauthorized('Invalid, used or expired sign-in token');
    const user = await findOrCreateUser(tx, email);
    return issueTokenPair(deps, tx, user);
  });
}
