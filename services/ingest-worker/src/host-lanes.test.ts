import { describe, expect, it } from 'vitest';
import { createHostLanes } from './host-lanes';
import { createWorkPool } from './pool';

const gate = () => {
  let open!: () => void;
  const p = new Promise<void>((r) => (open = r));
  return { p, open };
};
const tick = () => new Promise((r) => setTimeout(r, 5));
const job = (key: string) => ({ tenant_id: 'tnt_1', capture_id: key, run_id: `run_${key}` });

describe('host lanes', () => {
  it('lets perHost runs of one host into the pool, parks the rest in order, and sends a run without a host at once', async () => {
    const pool = createWorkPool({ concurrency: 4, queueLimit: 4 });
    const lanes = createHostLanes({ pool, perHost: 2, parkedLimit: 100 });
    const started: string[] = [];
    const holds = new Map<string, ReturnType<typeof gate>>();
    let busyIn = 0;
    let mostBusyIn = 0;
    const task = (key: string) => async () => {
      started.push(key);
      const busy = key.startsWith('busy-');
      if (busy) mostBusyIn = Math.max(mostBusyIn, ++busyIn);
      const g = gate();
      holds.set(key, g);
      await g.p;
      if (busy) busyIn--;
    };
    for (let i = 0; i < 50; i++)
      expect(await lanes.submit(job(`busy-${i}`), 'busy.example', task(`busy-${i}`))).toBe('accepted');
    expect(await lanes.submit(job('note'), undefined, task('note'))).toBe('accepted');
    expect(await lanes.submit(job('other'), 'other.example', task('other'))).toBe('accepted');
    await tick();
    expect(started).toEqual(['busy-0', 'busy-1', 'note', 'other']);
    expect(lanes.stats).toEqual({ parked: 48, hosts: 1 });
    // One of the host's runs ends: the next one in its lane goes in.
    holds.get('busy-1')!.open();
    await tick();
    expect(started.at(-1)).toBe('busy-2');
    expect(lanes.stats.parked).toBe(47);
    for (let i = 0; i < 100 && (started.length < 52 || pool.stats.running > 0); i++) {
      for (const g of holds.values()) g.open();
      await tick();
    }
    await pool.idle();
    expect(started.filter((k) => k.startsWith('busy-'))).toEqual(Array.from({ length: 50 }, (_, i) => `busy-${i}`));
    expect(lanes.stats).toEqual({ parked: 0, hosts: 0 });
    expect(mostBusyIn).toBe(2);
  });

  it('a later message of a parked capture replaces its run (the newer run is the one claimed)', async () => {
    const pool = createWorkPool({ concurrency: 1, queueLimit: 4 });
    const lanes = createHostLanes({ pool, perHost: 1, parkedLimit: 100 });
    const hold = gate();
    const ran: string[] = [];
    await lanes.submit(job('a'), 'h.example', async () => hold.p);
    expect(await lanes.submit(job('b'), 'h.example', async () => void ran.push('b run 1'))).toBe('accepted');
    expect(
      await lanes.submit({ ...job('b'), run_id: 'run_b2' }, 'h.example', async () => void ran.push('b run 2')),
    ).toBe('duplicate');
    expect(lanes.parked()).toEqual([{ ...job('b'), run_id: 'run_b2' }]);
    hold.open();
    await tick();
    await pool.idle();
    expect(ran).toEqual(['b run 2']);
  });

  it('waits (backpressure) once parkedLimit runs are parked, and takes more as the lanes move', async () => {
    const pool = createWorkPool({ concurrency: 1, queueLimit: 1 });
    const lanes = createHostLanes({ pool, perHost: 1, parkedLimit: 3 });
    const hold = gate();
    await lanes.submit(job('first'), 'h.example', async () => hold.p);
    for (const k of ['p1', 'p2', 'p3'])
      expect(await lanes.submit(job(k), 'h.example', async () => {})).toBe('accepted');
    let taken = false;
    const fourth = lanes.submit(job('p4'), 'h.example', async () => {}).then((r) => ((taken = true), r));
    await tick();
    expect(taken).toBe(false);
    expect(lanes.stats.parked).toBe(3);
    hold.open();
    expect(await fourth).toBe('accepted');
    await tick();
    await pool.idle();
    expect(lanes.stats).toEqual({ parked: 0, hosts: 0 });
  });

  it('close drops the parked runs, frees a waiting submit and refuses new ones; the runs in the pool finish', async () => {
    const pool = createWorkPool({ concurrency: 1, queueLimit: 1 });
    const lanes = createHostLanes({ pool, perHost: 1, parkedLimit: 1 });
    const hold = gate();
    const ran: string[] = [];
    await lanes.submit(job('in-pool'), 'h.example', async () => {
      await hold.p;
      ran.push('in-pool');
    });
    await lanes.submit(job('parked'), 'h.example', async () => void ran.push('parked'));
    const waiting = lanes.submit(job('waiting'), 'h.example', async () => void ran.push('waiting'));
    lanes.close();
    expect(await waiting).toBe('closed');
    expect(await lanes.submit(job('late'), undefined, async () => void ran.push('late'))).toBe('closed');
    hold.open();
    await tick();
    await pool.idle();
    expect(ran).toEqual(['in-pool']);
    expect(lanes.stats).toEqual({ parked: 0, hosts: 0 });
  });
});
