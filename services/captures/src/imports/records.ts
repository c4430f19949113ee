import type { Import } from '@kg/contracts';
import { iso, isoOrNull } from '@kg/db';
import type { ImportRow } from '../store/imports';

/** The public import record; an import is only shown once started (its format is known). */
export const toImport = (r: ImportRow): Import => ({
  id: r.id,
  status: r.status === 'uploading' ? 'queued' : r.status,
  format: r.format ?? 'netscape-html',
  filename: r.filename,
  size_bytes: r.sizeBytes,
  para: r.para,
  source: r.source,
  progress: { bytes_read: r.bytesRead, size_bytes: r.sizeBytes },
  counts: { seen: r.seen, created: r.created, duplicates: r.duplicates, skipped: r.skipped, invalid: r.invalid },
  errors: r.errors,
  failure: r.failure,
  created_at: iso(r.createdAt),
  updated_at: iso(r.updatedAt),
  finished_at: isoOrNull(r.finishedAt),
});
