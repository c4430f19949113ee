import type { TokenPair } from '@kg/sdk';
import { kg } from '../context.ts';
import { UsageError } from '../exit-codes.ts';
import { askLine } from '../input.ts';
import { note } from '../output.ts';
import { callJson } from '../raw.ts';

/**
 * The token from what the person pasted: the link from the mail (`…/sign-in#token=…`, or
 * `?token=…`) or the token alone.
 */
export function tokenFromPaste(pasted: string): string {
  const text = pasted.trim();
  const m = /[#?&]token=([^&#\s]+)/.exec(text);
  const token = m ? decodeURIComponent(m[1]!) : text;
  if (!token || /\s/.test(token)) throw new UsageError('that is neither a sign-in link nor a token');
  return token;
}

/** Headless sign-in: POST /auth/magic-link, then the pasted link or token to /auth/magic-link/verify. */
export async function magicLinkLogin(email: string, given?: string): Promise<void> {
  const { session } = kg();
  if (!given) {
    await callJson('POST', '/auth/magic-link', { auth: false, body: { email } });
    note(`A sign-in link was mailed to ${email}. Open the mail and paste the link (or just its token) here.`);
  }
  const pasted = given ?? (await askLine('Link or token: '));
  const pair = await callJson<TokenPair>('POST', '/auth/magic-link/verify', {
    auth: false,
    body: { token: tokenFromPaste(pasted) },
  });
  await session.saveLogin(pair, email.trim().toLowerCase());
}
