/**
 * How far a bookmark import has come, for people: shared by the CLI (`kg import-bookmarks`,
 * `kg imports`) and the dashboard's Import bookmarks page (which bundles this file: no Node.js
 * API).
 */
import type { components } from './openapi.ts';

type Import = components['schemas']['Import'];

/** The statuses after which an import changes no more. */
export const FINAL_IMPORT_STATUSES: ReadonlySet<Import['status']> = new Set(['completed', 'failed', 'cancelled']);
export const isFinal = (imp: Pick<Import, 'status'>) => FINAL_IMPORT_STATUSES.has(imp.status);

/** 1536 → "1.5 KiB". */
export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ['KiB', 'MiB', 'GiB'];
  let v = n / 1024;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return `${v >= 100 ? Math.round(v) : v.toFixed(1)} ${units[u]}`;
}

/** How much of the file the server has read, 0–100 (100 once completed, whatever was read). */
export function percentRead(imp: Pick<Import, 'status' | 'progress'>): number {
  if (imp.status === 'completed') return 100;
  const { bytes_read, size_bytes } = imp.progress;
  return size_bytes > 0 ? Math.min(100, Math.floor((bytes_read / size_bytes) * 100)) : 0;
}
