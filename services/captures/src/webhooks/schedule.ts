/**
 * When a failed delivery is tried again. The delays grow roughly fivefold, then double, each
 * with ±10 % jitter so that the deliveries of one outage do not all return at once; a delivery
 * is given up once the next attempt would fall outside `windowMs` from its first (24 h by
 * default: 5 s, 30 s, 2 min, 10 min, 30 min, 1 h, 2 h, 4 h, 8 h, then 8 h while in the window).
 */
export interface RetrySchedule {
  /** Delay before attempt `attempt + 1`, after `attempt` failed ones. */
  delayMs(attempt: number): number;
  /** How long after its creation a delivery is still tried. */
  windowMs: number;
}

export const DEFAULT_DELAYS_MS = [
  5_000, 30_000, 120_000, 600_000, 1_800_000, 3_600_000, 7_200_000, 14_400_000, 28_800_000,
];

export function retrySchedule(
  delaysMs: readonly number[] = DEFAULT_DELAYS_MS,
  windowMs = 24 * 3600_000,
  jitter = 0.1,
): RetrySchedule {
  return {
    windowMs,
    delayMs(attempt) {
      const base = delaysMs[Math.min(attempt, delaysMs.length) - 1] ?? delaysMs[0] ?? 1000;
      return Math.round(base * (1 + jitter * (2 * Math.random() - 1)));
    },
  };
}

/** The next attempt's time, or null when the delivery is given up (out of its window). */
export function nextAttemptAt(schedule: RetrySchedule, createdAt: Date, attempts: number, now: Date): Date | null {
  const next = new Date(now.getTime() + schedule.delayMs(attempts));
  return next.getTime() - createdAt.getTime() > schedule.windowMs ? null : next;
}
