import { DEFAULT_DELAYS_MS } from '../../services/captures/src/webhooks/schedule';

/** The retry delays the server runs with: WEBHOOK_RETRY_DELAYS_MS when set, else the default (5 s, 30 s, 2 min, 10 min…). */
export function retryDelays(setting: string | undefined): number[] {
  const list = (setting ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map(Number);
  return list.length ? list : DEFAULT_DELAYS_MS;
}

/** Jitter of each delay (services/captures/src/webhooks/schedule.ts: ±10 %). */
const JITTER = 0.1;

export interface Expected {
  /** The attempt (1 = the first) that comes after the receiver is back. */
  attempt: number;
  /** When it is due, ms from the receiver's recovery: nominal (no jitter), earliest and latest (every delay −10 % / +10 %). */
  nominal: number;
  earliest: number;
  latest: number;
}

/** The first attempt at or after `outageMs` of an event queued at `createdMs`, every delay scaled by `f`. */
function firstAfter(delays: readonly number[], createdMs: number, outageMs: number, f: number) {
  const delay = (k: number) => delays[Math.min(k, delays.length) - 1]!;
  let at = createdMs;
  let attempt = 1;
  while (at < outageMs) {
    at += delay(attempt) * f;
    attempt++;
  }
  return { attempt, after: at - outageMs };
}

/**
 * When the schedule lets an event queued `createdMs` after the outage began be delivered, given
 * that every attempt before `outageMs` fails: the first attempt at or after the recovery. Attempt
 * k + 1 comes delay(k) after attempt k fails (the last delay repeats); the attempts themselves
 * are taken as instantaneous, so the real times are a little later. The window scales every
 * delay alike from −10 % to +10 % (a late attempt may cross the recovery and come earlier).
 */
export function expectedDelivery(delays: readonly number[], createdMs: number, outageMs: number): Expected {
  const nominal = firstAfter(delays, createdMs, outageMs, 1);
  const spread = Array.from(
    { length: 21 },
    (_, i) => firstAfter(delays, createdMs, outageMs, 1 - JITTER + i / 100).after,
  );
  return {
    attempt: nominal.attempt,
    nominal: nominal.after,
    earliest: Math.min(...spread),
    latest: Math.max(...spread),
  };
}

/** The schedule as words: "5 s, 30 s, 2 min, 10 min, …". */
export function describeDelays(delays: readonly number[]): string {
  const one = (ms: number) =>
    ms % 3600_000 === 0
      ? `${ms / 3600_000} h`
      : ms % 60_000 === 0
        ? `${ms / 60_000} min`
        : ms % 1000 === 0
          ? `${ms / 1000} s`
          : `${ms} ms`;
  return delays.map(one).join(', ');
}
