import type { Schemas } from '@kg/sdk';
import { out, when } from '../output.ts';

type Webhook = Schemas['Webhook'];

/** An endpoint's state in a word or two: enabled, paused, or why the server disabled it. */
export function stateText(w: Webhook): string {
  if (w.enabled) return w.failing_since ? `enabled, failing since ${when(w.failing_since)}` : 'enabled';
  switch (w.disabled_reason) {
    case 'gone':
      return 'disabled: receiver answered 410 Gone';
    case 'failing':
      return 'disabled: kept failing';
    default:
      return 'paused';
  }
}

export function stateOf(w: Webhook): string {
  const text = stateText(w);
  if (w.enabled) return w.failing_since ? out.yellow(text) : out.green(text);
  return w.disabled_reason === 'by_user' || !w.disabled_reason ? out.dim(text) : out.red(text);
}

/** What to do about an endpoint the server disabled (null when it did not). */
export function disabledHint(w: Webhook): string | null {
  if (w.enabled || w.disabled_reason === 'by_user' || !w.disabled_reason) return null;
  const why =
    w.disabled_reason === 'gone'
      ? 'its receiver answered 410 Gone'
      : `every attempt failed${w.failing_since ? ` since ${when(w.failing_since)}` : ''}, for the server's failure window (a day by default)`;
  return `${w.id} was disabled by the server on ${when(w.disabled_at)}: ${why}. Fix the receiver, then \`kg webhooks update ${w.id} --enable\`.`;
}

export const attemptOutcome = (a: Schemas['WebhookAttempt']) =>
  a.outcome === 'succeeded' ? out.green(a.outcome) : out.red(a.outcome);
