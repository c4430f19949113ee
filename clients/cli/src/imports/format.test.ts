import { describe, expect, it } from 'vitest';
import type { Import } from '@kg/sdk';
import { anImport } from './an-import.ts';
import { bytes, countsText, errorLines, importFields, isFinal, percent, progressLine, sameProgress } from './format.ts';

describe('import formatting', () => {
  it('sizes in binary units', () => {
    expect([0, 1023, 1536, 5 * 1024 * 1024, 150 * 1024 * 1024, 3 * 1024 ** 3].map(bytes)).toEqual([
      '0 B',
      '1023 B',
      '1.5 KiB',
      '5.0 MiB',
      '150 MiB',
      '3.0 GiB',
    ]);
  });

  it('percent read: bounded, 100 once completed, 0 for an empty size', () => {
    expect(percent(anImport())).toBe(50);
    expect(percent(anImport({ progress: { bytes_read: 9999, size_bytes: 10 } }))).toBe(100);
    expect(percent(anImport({ progress: { bytes_read: 0, size_bytes: 0 } }))).toBe(0);
    expect(percent(anImport({ status: 'completed', progress: { bytes_read: 0, size_bytes: 0 } }))).toBe(100);
  });

  it('counts and a plain progress line', () => {
    expect(countsText(anImport().counts)).toBe('3 created · 1 duplicate · 1 skipped · 0 invalid');
    expect(progressLine(anImport())).toBe(
      'imp_01jdtest running 50% (1.0 KiB of 2.0 KiB) · 5 read · 3 created · 1 duplicate · 1 skipped · 0 invalid',
    );
  });

  it('final statuses', () => {
    expect(
      ['queued', 'running', 'completed', 'failed', 'cancelled'].map((status) => isFinal({ status } as Import)),
    ).toEqual([false, false, true, true, true]);
  });

  it('errors by line, one line each, with how many more were not kept', () => {
    const imp = anImport({
      errors: [
        { line: 17, reason: 'a link without an address (no HREF)' },
        { line: 0, reason: 'a record\nbroken over lines' },
      ],
      counts: { seen: 150, created: 0, duplicates: 0, skipped: 0, invalid: 150 },
    });
    expect(errorLines(imp)).toEqual([
      'line 17: a link without an address (no HREF)',
      'entry: a record broken over lines',
      '… and 148 more (the first 2 are kept)',
    ]);
    expect(errorLines(anImport())).toEqual([]);
  });

  it('fields: the failure and the time taken only when there are some', () => {
    const running = new Map(importFields(anImport()));
    expect(running.has('failure')).toBe(false);
    expect(running.has('took')).toBe(false);
    const failed = new Map(
      importFields(
        anImport({ status: 'failed', failure: 'the file is gone', finished_at: '2026-11-28T10:00:02.500Z' }),
      ),
    );
    expect(failed.get('failure')).toBe('the file is gone');
    expect(failed.get('took')).toBe('2.5 s');
  });

  it('progress is the same when neither status, bytes nor counts moved', () => {
    const a = anImport();
    expect(sameProgress(undefined, a)).toBe(false);
    expect(sameProgress(a, anImport({ updated_at: '2026-11-28T10:00:09.000Z' }))).toBe(true);
    expect(sameProgress(a, anImport({ status: 'completed' }))).toBe(false);
    expect(sameProgress(a, anImport({ counts: { ...a.counts, created: 4 } }))).toBe(false);
  });
});
