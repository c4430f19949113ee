import { describe, expect, it } from 'vitest';
import { formatBytes, isFinal, percentRead } from './import-progress.ts';

describe('import progress', () => {
  it('sizes in binary units', () => {
    expect([0, 1023, 1536, 5 * 1024 * 1024, 150 * 1024 * 1024].map(formatBytes)).toEqual([
      '0 B',
      '1023 B',
      '1.5 KiB',
      '5.0 MiB',
      '150 MiB',
    ]);
  });

  it('percent read: bounded, 0 for an empty file, 100 once completed', () => {
    const at = (status: 'running' | 'completed', bytes_read: number, size_bytes: number) =>
      percentRead({ status, progress: { bytes_read, size_bytes } });
    expect(at('running', 512, 2048)).toBe(25);
    expect(at('running', 5000, 2048)).toBe(100);
    expect(at('running', 0, 0)).toBe(0);
    expect(at('completed', 10, 2048)).toBe(100);
  });

  it('completed, failed and cancelled are final', () => {
    expect(
      (['queued', 'running', 'completed', 'failed', 'cancelled'] as const).map((status) => isFinal({ status })),
    ).toEqual([false, false, true, true, true]);
  });
});
