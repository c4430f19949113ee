import { open, rm, stat } from 'node:fs/promises';

export interface LockOptions {
  /** Give up after this long (default 15 s). */
  timeoutMs?: number;
  /** A lock file older than this is left over by a crashed process and is taken over (default 30 s). */
  staleMs?: number;
}

/**
 * Runs `fn` holding an exclusive lock file (created with O_EXCL, which is atomic on local
 * file systems), so processes of one machine sharing a profile refresh one at a time.
 */
export async function withFileLock<T>(file: string, fn: () => Promise<T>, opts: LockOptions = {}): Promise<T> {
  const timeoutMs = opts.timeoutMs ?? 15_000;
  const staleMs = opts.staleMs ?? 30_000;
  const deadline = Date.now() + timeoutMs;
  let delay = 20;
  for (;;) {
    try {
      const handle = await open(file, 'wx', 0o600);
      await handle.writeFile(`${process.pid}\n`);
      await handle.close();
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      const age = await stat(file).then(
        (s) => Date.now() - s.mtimeMs,
        () => 0,
      );
      if (age > staleMs) {
        await rm(file, { force: true });
        continue;
      }
      if (Date.now() > deadline) throw new Error(`timed out waiting for the lock ${file}`);
      await new Promise((r) => setTimeout(r, delay));
      delay = Math.min(delay * 2, 200);
    }
  }
  try {
    return await fn();
  } finally {
    await rm(file, { force: true });
  }
}
