import type { Import } from '@kg/sdk';

/** A running import for the tests, with `patch` applied. */
export const anImport = (patch: Partial<Import> = {}): Import => ({
  id: 'imp_01jdtest',
  status: 'running',
  format: 'netscape-html',
  filename: 'bookmarks.html',
  size_bytes: 2048,
  para: false,
  source: 'cli',
  progress: { bytes_read: 1024, size_bytes: 2048 },
  counts: { seen: 5, created: 3, duplicates: 1, skipped: 1, invalid: 0 },
  errors: [],
  failure: null,
  created_at: '2026-11-28T10:00:00.000Z',
  updated_at: '2026-11-28T10:00:01.000Z',
  finished_at: null,
  ...patch,
});
