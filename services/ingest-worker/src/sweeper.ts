import type { capturesApi } from '@kg/contracts';
import type { Logger } from '@kg/logger';
import type { ServiceHandle } from '@kg/trpc';
import { systemIdentity } from './captures-calls';

export interface SweeperDeps {
  captures: ServiceHandle<typeof capturesApi>;
  logger: Logger;
  /** A capture pending this long, or processing this long past its lease, is re-queued. */
  afterMs: number;
  intervalMs: number;
}

/**
 * Nothing waits forever: captures left `pending` (a lost message, a deferred retry) or
 * `processing` past their lease (a worker that died) are re-queued, keeping their run, so the
 * next worker resumes after the last recorded stage. Several workers may sweep at once:
 * requeue only acts on a capture still stuck, and a duplicate message is dropped at claim.
 */
export function createSweeper(deps: SweeperDeps) {
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<number> | null = null;

  async function sweepOnce(): Promise<number> {
    const { captures } = await deps.captures.as(null).pipeline.stuck({ older_than_ms: deps.afterMs, limit: 100 });
    let requeued = 0;
    for (const c of captures) {
      try {
        const r = await deps.captures
          .as(systemIdentity(c.tenant_id))
          .pipeline.requeue({ capture_id: c.capture_id, reason: 'sweep' });
        if (r.requeued) requeued++;
      } catch (err) {
        deps.logger.warn({ err, capture_id: c.capture_id }, 'could not re-queue a stuck capture');
      }
    }
    if (requeued) deps.logger.info({ requeued }, 'stuck captures re-queued');
    return requeued;
  }

  const sweep = () =>
    (running ??= sweepOnce()
      .catch((err: unknown) => {
        deps.logger.warn({ err }, 'sweep for stuck captures failed');
        return 0;
      })
      .finally(() => (running = null)));

  return {
    sweep,
    start() {
      timer = setInterval(() => void sweep(), deps.intervalMs);
      timer.unref();
    },
    async stop() {
      if (timer) clearInterval(timer);
      timer = null;
      await running;
    },
  };
}
