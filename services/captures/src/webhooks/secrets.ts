import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

/** A new signing secret in the Standard Webhooks form: `whsec_` and 24 random bytes in base64. */
export const newWebhookSecret = (): string => `whsec_${randomBytes(24).toString('base64')}`;

/** What an endpoint shows of its secret: enough to recognise it, too little to use it. */
export const secretPrefix = (secret: string): string => secret.slice(0, 12);

export interface SigningKeys {
  secret: string;
  /** The previous secret while a rotation's overlap lasts. */
  previous: string | null;
}

/**
 * The three Standard Webhooks headers of one attempt. `webhook-signature` holds one `v1,…`
 * signature per live secret (space-separated), so a receiver that still has the previous secret
 * accepts deliveries during a rotation's overlap.
 */
export function signedHeaders(keys: SigningKeys, messageId: string, at: Date, body: string): Record<string, string> {
  const secrets = keys.previous ? [keys.secret, keys.previous] : [keys.secret];
  const signatures = secrets.map((s) => new Webhook(s).sign(messageId, at, body));
  return {
    'webhook-id': messageId,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': signatures.join(' '),
  };
}
