import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { isBackground } from './priority';
import { createPump } from './pump';

/** A pass that takes `ms`, counting passes, overlaps and whether it ran as background work. */
function counter(ms = 20) {
  const seen = { passes: 0, inFlight: 0, mostInFlight: 0, background: true };
  const pass = async () => {
    seen.passes++;
    seen.mostInFlight = Math.max(seen.mostInFlight, ++seen.inFlight);
    seen.background &&= isBackground();
    await sleep(ms);
    seen.inFlight--;
    return 1;
  };
  return { seen, pass };
}

describe('createPump', () => {
  it('never overlaps passes, and wakes during a pass coalesce into one more pass', async () => {
    const { seen, pass } = counter();
    const pump = createPump({ pass, onError: () => {}, nextInMs: () => null });
    pump.start();
    for (let i = 0; i < 10; i++) void pump.run();
    await sleep(100);
    await pump.stop();
    expect(seen.mostInFlight).toBe(1);
    expect(seen.passes).toBe(2);
    expect(seen.background).toBe(true);
  });

  it('polls after nextInMs, and a failed pass is reported and tried again at the next', async () => {
    let calls = 0;
    const errors: unknown[] = [];
    const pump = createPump({
      pass: async () => {
        if (++calls === 1) throw new Error('broker away');
        return 0;
      },
      onError: (err) => errors.push(err),
      nextInMs: () => 10,
    });
    pump.start();
    await sleep(120);
    await pump.stop();
    expect(errors).toHaveLength(1);
    expect(calls).toBeGreaterThanOrEqual(3);
    const after = calls;
    await sleep(50);
    expect(calls).toBe(after);
  });

  it('stop waits for the pass in flight, and a run after it passes once without scheduling more', async () => {
    const { seen, pass } = counter(50);
    const pump = createPump({ pass, onError: () => {}, nextInMs: () => 5 });
    pump.start();
    await sleep(10);
    await pump.stop();
    expect(seen.inFlight).toBe(0);
    expect(pump.stopped).toBe(true);
    await pump.run();
    await sleep(30);
    expect(seen.passes).toBe(2);
  });

  it('a nextInMs that fails is reported, and the pump waits for a wake', async () => {
    const { seen, pass } = counter(1);
    const errors: unknown[] = [];
    const pump = createPump({
      pass,
      onError: (err) => errors.push(err),
      nextInMs: () => Promise.reject(new Error('database away')),
    });
    pump.start();
    await sleep(50);
    expect(seen.passes).toBe(1);
    expect(errors).toHaveLength(1);
    await pump.run();
    expect(seen.passes).toBe(2);
    await pump.stop();
  });
});
