import { unauthorized, type TokenPair } from '@kg/contracts';
import { consumeMagicLink, insertMagicLink } from '../store/magic-links';
import { findOrCreateUser } from '../store/users';
import { MAGIC_LINK_TTL_MS, type AuthContext } from './deps';
import { randomSecret, sha256 } from './secrets';
import { issueTokenPair } from './sessions';

/** Stores the hash of a fresh single-use token and mails the token. */
export async function requestMagicLink(ctx: AuthContext, email: string): Promise<void> {
  const token = randomSecret();
  await insertMagicLink(ctx.db, sha256(token), email, new Date(ctx.now().getTime() + MAGIC_LINK_TTL_MS));
  const link = `${ctx.publicUrl.replace(/\/$/, '')}/auth/verify?token=${encodeURIComponent(token)}`;
  await ctx.mail.send({
    to: email,
    subject: 'Your sign-in link',
    text: `Sign in to your knowledge graph:\n\n${link}\n\nThe link works once and expires in 15 minutes. If you did not ask for it, ignore this mail.`,
    token,
  });
}

/** Exchanges a token (once, within 15 minutes) for a session; the first sign-in creates the tenant. */
export async function verifyMagicLink(ctx: AuthContext, token: string): Promise<TokenPair> {
  return ctx.db.transaction(async (tx) => {
    const email = await consumeMagicLink(tx, sha256(token), ctx.now());
    if (!email) throw unauthorized('Invalid, used or expired sign-in token');
    const user = await findOrCreateUser(tx, email);
    return issueTokenPair(ctx, tx, user);
  });
}
