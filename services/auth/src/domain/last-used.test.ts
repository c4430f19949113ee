import { describe, expect, it } from 'vitest';
import type { Deps } from './deps';
import { LAST_USED_GRANULARITY_MS, recordUse } from './last-used';

describe('recordUse', () => {
  it('writes at most once per key per interval, without even issuing a statement in between', async () => {
    let now = new Date('2026-11-22T12:00:00Z');
    const deps = { now: () => now, lastUsedWrites: new Map<string, number>() } as unknown as Deps;
    const writes: Array<[string, string]> = [];
    const use = (id: string, lastUsedAt: Date | null = null) =>
      recordUse(deps, { id, lastUsedAt }, async (at) => {
        writes.push([id, at.toISOString()]);
      });
    for (let s = 0; s < 180; s += 5) {
      now = new Date(Date.parse('2026-11-22T12:00:00Z') + s * 1000);
      await use('key_a');
      await use('key_b');
    }
    expect(writes.filter(([id]) => id === 'key_a').map(([, at]) => at)).toEqual([
      '2026-11-22T12:00:00.000Z',
      '2026-11-22T12:01:00.000Z',
      '2026-11-22T12:02:00.000Z',
    ]);
    expect(writes.filter(([id]) => id === 'key_b')).toHaveLength(3);
  });

  it('skips the write when another replica stored a recent value', async () => {
    const now = new Date('2026-11-22T12:00:00Z');
    const deps = { now: () => now, lastUsedWrites: new Map<string, number>() } as unknown as Deps;
    let writes = 0;
    const fresh = new Date(now.getTime() - LAST_USED_GRANULARITY_MS + 1000);
    await recordUse(deps, { id: 'key_c', lastUsedAt: fresh }, async () => void writes++);
    expect(writes).toBe(0);
    await recordUse(deps, { id: 'key_d', lastUsedAt: new Date(now.getTime() - LAST_USED_GRANULARITY_MS) }, async () => {
      writes++;
    });
    expect(writes).toBe(1);
  });
});
