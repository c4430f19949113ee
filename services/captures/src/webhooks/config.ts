import { type z } from 'zod';
import { env } from '@kg/config';
import { addressAllowlistEnv } from '@kg/service-kit';

const delays = () =>
  env
    .list()
    .refine((v) => v.every((d) => /^[1-9][0-9]{0,9}$/.test(d)), {
      message: 'must be comma-separated positive integers (ms)',
    })
    .transform((v) => v.map(Number));

/** Webhook delivery settings, the same in both modes (the one-process host spreads them into its own schema). */
export const webhooksEnv = {
  /** Addresses or CIDRs an endpoint may resolve to although private, loopback, link-local… (e.g. a receiver on this machine). */
  WEBHOOK_ALLOWLIST: addressAllowlistEnv(),
  /** Limit on one delivery attempt, connect to the receiver's status line (ms). */
  WEBHOOK_TIMEOUT_MS: env.positiveInt(10_000),
  /** Delays between attempts (ms, comma-separated; the last repeats); empty: 5 s, 30 s, 2 min, 10 min, 30 min, 1 h, 2 h, 4 h, 8 h. */
  WEBHOOK_RETRY_DELAYS_MS: delays(),
  /** How long after its event a delivery is still attempted (ms). */
  WEBHOOK_RETRY_WINDOW_MS: env.positiveInt(24 * 3600_000),
  /** An endpoint whose attempts all failed for this long is disabled (ms). */
  WEBHOOK_FAILURE_WINDOW_MS: env.positiveInt(24 * 3600_000),
  /** How long a dispatcher's claim on a delivery holds (ms): a process that dies mid-attempt leaves it to be taken again after this; longer than WEBHOOK_TIMEOUT_MS. */
  WEBHOOK_LEASE_MS: env.positiveInt(60_000),
  /** Webhook endpoints per tenant. */
  WEBHOOK_MAX_ENDPOINTS: env.positiveInt(20),
};
export type WebhooksConfig = z.infer<z.ZodObject<typeof webhooksEnv>>;

/** The claim must outlast an attempt, or a slow attempt's delivery would be taken by another dispatcher meanwhile. */
export function checkWebhooks(c: WebhooksConfig, ctx: z.RefinementCtx): void {
  if (c.WEBHOOK_LEASE_MS <= c.WEBHOOK_TIMEOUT_MS)
    ctx.addIssue({ code: 'custom', path: ['WEBHOOK_LEASE_MS'], message: 'must be longer than WEBHOOK_TIMEOUT_MS' });
}
