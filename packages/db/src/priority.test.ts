import { describe, expect, it } from 'vitest';
import { INTERACTIVE_BURST, PriorityGate, YIELD_AFTER_MS, inBackground, isBackground } from './priority';

const tick = () => new Promise((r) => setTimeout(r, 1));

describe('PriorityGate', () => {
  it('runs one operation at a time and lets requests ahead of waiting background work', async () => {
    const gate = new PriorityGate();
    const order: string[] = [];
    let running = 0;
    let most = 0;
    const op = (name: string) => async () => {
      most = Math.max(most, ++running);
      await tick();
      order.push(name);
      running--;
    };
    const all = [
      gate.run(op('bg-1'), true),
      gate.run(op('bg-2'), true),
      gate.run(op('bg-3'), true),
      gate.run(op('request-1'), false),
      gate.run(op('request-2'), false),
    ];
    await Promise.all(all);
    expect(most).toBe(1);
    expect(order).toEqual(['bg-1', 'request-1', 'request-2', 'bg-2', 'bg-3']);
  });

  it('never starves background work: one goes after INTERACTIVE_BURST requests in a row', async () => {
    const gate = new PriorityGate();
    const order: string[] = [];
    const op = (name: string) => async () => {
      await tick();
      order.push(name);
    };
    const ops = [gate.run(op('first'), false), gate.run(op('bg'), true)];
    for (let i = 0; i < 10; i++) ops.push(gate.run(op(`r${i}`), false));
    await Promise.all(ops);
    expect(order.indexOf('bg')).toBe(1 + INTERACTIVE_BURST);
  });

  it('with room for two, two statements overlap, never three; a transaction runs alone', async () => {
    const gate = new PriorityGate(2);
    const log: string[] = [];
    let running = 0;
    let most = 0;
    let exclusiveSaw = -1;
    const op =
      (name: string, exclusive = false) =>
      () =>
        gate.run(
          async () => {
            most = Math.max(most, ++running);
            if (exclusive) exclusiveSaw = running;
            log.push(`start ${name}`);
            await tick();
            log.push(`end ${name}`);
            running--;
          },
          false,
          exclusive,
        );
    await Promise.all([op('a')(), op('b')(), op('c')(), op('tx', true)(), op('d')(), op('e')()]);
    expect(most).toBe(2);
    expect(exclusiveSaw).toBe(1);
    // The transaction starts once a, b and c have ended, and d starts once it has ended.
    const at = (entry: string) => log.indexOf(entry);
    expect(at('start tx')).toBeGreaterThan(Math.max(at('end a'), at('end b'), at('end c')));
    expect(at('start d')).toBeGreaterThan(at('end tx'));
    // Nobody passes a waiting transaction.
    expect(at('start d')).toBeGreaterThan(at('start tx'));
  });

  it('with room for two, requests still go ahead of waiting background work', async () => {
    const gate = new PriorityGate(2);
    const order: string[] = [];
    const op = (name: string) => async () => {
      await tick();
      order.push(name);
    };
    const all = [
      gate.run(op('bg-1'), true),
      gate.run(op('bg-2'), true),
      gate.run(op('bg-3'), true),
      gate.run(op('bg-4'), true),
      gate.run(op('request-1'), false),
      gate.run(op('request-2'), false),
    ];
    await Promise.all(all);
    expect(order.slice(0, 2).sort()).toEqual(['bg-1', 'bg-2']);
    expect(order.slice(2, 4).sort()).toEqual(['request-1', 'request-2']);
  });

  it('background operations hold the thread for about YIELD_AFTER_MS, then the event loop turns', async () => {
    const gate = new PriorityGate();
    let ran = 0;
    /** A statement of PGlite in this thread: 0.1 ms of synchronous work. */
    const statement = async () => {
      const end = performance.now() + 0.1;
      while (performance.now() < end);
      ran += 1;
    };
    const seenAtTurn: number[] = [];
    let done = false;
    const turn = () => {
      seenAtTurn.push(ran);
      if (!done) setImmediate(turn);
    };
    setImmediate(turn);
    await Promise.all(Array.from({ length: 200 }, () => gate.run(statement, true)));
    done = true;
    const perTurn = seenAtTurn.slice(1).map((n, i) => n - seenAtTurn[i]!);
    // With 4 ms slices (before) a turn came after ~40 statements; now after ~3.
    expect(Math.max(...perTurn)).toBeLessThanOrEqual(Math.ceil(YIELD_AFTER_MS / 0.1) + 2);
    expect(ran).toBe(200);
  });

  it('an operation that throws lets the next one go', async () => {
    const gate = new PriorityGate();
    const failing = gate.run(async () => {
      throw new Error('boom');
    });
    const next = gate.run(async () => 'ran');
    await expect(failing).rejects.toThrow('boom');
    await expect(next).resolves.toBe('ran');
    expect(gate.waiting).toEqual({ interactive: 0, background: 0 });
  });

  it('inBackground marks everything its function starts, timers and awaits included', async () => {
    expect(isBackground()).toBe(false);
    const seen = await inBackground(async () => {
      await tick();
      return new Promise<boolean>((r) => setTimeout(() => r(isBackground()), 1));
    });
    expect(seen).toBe(true);
    expect(isBackground()).toBe(false);
  });
});
