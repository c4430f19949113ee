import { describe, expect, it } from 'vitest';
import { createLogger } from '@kg/logger';
import { createSweeper } from './sweeper';
import { fakeServices } from './testing';

describe('sweeper', () => {
  it('re-queues captures pending too long and processing past their lease, and leaves the others', async () => {
    let now = 1_000_000;
    const fake = fakeServices(() => now);
    const pending = fake.add({ raw_text: 'lost message' });
    const crashed = fake.add({ raw_text: 'worker died' });
    const live = fake.add({ raw_text: 'in progress' });
    const done = fake.add({ raw_text: 'finished' });
    fake.captures.get(crashed.capture_id)!.run.status = 'processing';
    fake.captures.get(crashed.capture_id)!.run.lease_until = now;
    fake.captures.get(live.capture_id)!.run.status = 'processing';
    fake.captures.get(live.capture_id)!.run.lease_until = now + 120_000;
    fake.captures.get(done.capture_id)!.run.status = 'processed';
    const sweeper = createSweeper({
      captures: fake.capturesHandle,
      logger: createLogger('test', 'silent'),
      afterMs: 60_000,
      intervalMs: 1000,
    });
    expect(await sweeper.runOnce()).toBe(0); // nothing is old enough yet
    now += 60_000;
    expect(await sweeper.runOnce()).toBe(2);
    expect(fake.requeued.sort()).toEqual([pending.capture_id, crashed.capture_id].sort());
    expect(fake.captures.get(crashed.capture_id)!.log).toEqual(['requeued']);
  });

  it('does not re-queue the runs this worker keeps in its hosts’ lines: it tells them as waiting', async () => {
    let now = 1_000_000;
    const fake = fakeServices(() => now);
    const parked = fake.add({ url: 'https://busy.example/a', content_type: 'article' });
    const lost = fake.add({ url: 'https://busy.example/b', content_type: 'article' });
    const sweeper = createSweeper({
      captures: fake.capturesHandle,
      logger: createLogger('test', 'silent'),
      afterMs: 60_000,
      intervalMs: 30_000,
      parked: () => [parked],
    });
    for (let i = 0; i < 10; i++) {
      now += 30_000;
      await sweeper.runOnce();
    }
    // (The fake's requeue leaves the lost one old: it is offered at every sweep.)
    expect(new Set(fake.requeued)).toEqual(new Set([lost.capture_id]));
    expect(fake.captures.get(parked.capture_id)!.log).toEqual([]);
  });
});
