import { createServer } from 'node:net';

export { freePort } from '../../e2e/support/ports';

const canBind = (port: number) =>
  new Promise<boolean>((resolve) => {
    const srv = createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });

/**
 * The first base port (from `from`, in steps of 100) whose 100 ports are all free: the
 * services and their metrics listeners sit at fixed offsets from it, and a cluster left
 * running by an interrupted run must not answer for this one (its keys would differ).
 */
export async function freePortBlock(from: number, tries = 20): Promise<number> {
  for (let base = from; base < from + tries * 100; base += 100) {
    const free = await Promise.all(Array.from({ length: 100 }, (_, i) => canBind(base + i)));
    if (free.every(Boolean)) return base;
  }
  throw new Error(`no block of 100 free ports from ${from}`);
}
