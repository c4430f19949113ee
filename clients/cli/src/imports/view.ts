import path from 'node:path';
import type { Import } from '@kg/sdk';
import { err, note } from '../output.ts';
import type { FollowView } from './follow.ts';
import { bytes, countsText, progressLine, sameProgress } from './format.ts';

/** Plain lines (not a terminal) at most this often, when something changed (and at every status change). */
export const PLAIN_EVERY_MS = 2000;

export interface ProgressView extends FollowView {
  /** Ends the bar (the terminal line is left as it is). */
  stop(): void;
}

/** No progress at all (`--json`: stdout carries only the final import). */
export const quietView = (): ProgressView => ({ update: () => undefined, stop: () => undefined });

/** A line on stderr when the import moved, at most every PLAIN_EVERY_MS, always when its status changes. */
export function plainView(now = () => Date.now(), write = note): ProgressView {
  let shown: Import | undefined;
  let at = 0;
  return {
    update(imp) {
      if (sameProgress(shown, imp)) return;
      if (shown && shown.status === imp.status && now() - at < PLAIN_EVERY_MS) return;
      shown = imp;
      at = now();
      write(progressLine(imp));
    },
    stop: () => undefined,
  };
}

/** A progress bar on the terminal (stderr): bytes the server has read of the file, and the counts. */
export async function barView(filename: string): Promise<ProgressView> {
  const { SingleBar } = await import('cli-progress');
  const bar = new SingleBar({
    format: `Importing ${path.basename(filename)} {bar} {percentage}% · {read} of {size} · {counts} · {status}`,
    hideCursor: true,
    stream: process.stderr,
    // Redrawn on each look (every second) rather than on a timer of its own.
    noTTYOutput: false,
  });
  let started = false;
  return {
    update(imp) {
      const payload = {
        read: bytes(imp.progress.bytes_read),
        size: bytes(imp.progress.size_bytes),
        counts: countsText(imp.counts),
        status: imp.status === 'completed' ? err.green(imp.status) : imp.status,
      };
      const total = Math.max(imp.progress.size_bytes, 1);
      const value = imp.status === 'completed' ? total : Math.min(imp.progress.bytes_read, total);
      if (!started) {
        bar.start(total, value, payload);
        started = true;
      } else bar.update(value, payload);
    },
    stop: () => started && bar.stop(),
  };
}
