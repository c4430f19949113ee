import { expect, inject } from 'vitest';

/** One server-sent event as read from the wire (`data` parsed as JSON). */
export interface Sse {
  event: string;
  id: string | undefined;
  data: Record<string, unknown>;
}

/**
 * Opens GET /events at `base` with `auth` and reads it in the background: `events` grows as they
 * arrive, `ended` resolves when the server ends the response (never when the test aborts it).
 */
export async function openStream(auth: string, base = `${inject('baseUrl')}/api/v1`) {
  const ctrl = new AbortController();
  const res = await fetch(`${base}/events`, {
    headers: { authorization: auth, accept: 'text/event-stream' },
    signal: ctrl.signal,
  });
  expect(res.status, await peek(res)).toBe(200);
  const events: Sse[] = [];
  let serverEnded = false;
  const reader = res.body!.getReader();
  const pump = (async () => {
    const decoder = new TextDecoder();
    let buffer = '';
    for (;;) {
      const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true as const }));
      if (done) {
        serverEnded = !ctrl.signal.aborted;
        return;
      }
      buffer += decoder.decode(value, { stream: true });
      let cut: number;
      while ((cut = buffer.indexOf('\n\n')) >= 0) {
        const lines = buffer
          .slice(0, cut)
          .split('\n')
          .filter((l) => l && !l.startsWith(':'));
        buffer = buffer.slice(cut + 2);
        const field = (name: string) =>
          lines
            .find((l) => l.startsWith(`${name}:`))
            ?.slice(name.length + 1)
            .trimStart();
        const [event, data] = [field('event'), field('data')];
        if (event && data) events.push({ event, id: field('id'), data: JSON.parse(data) as Record<string, unknown> });
      }
    }
  })();
  return {
    events,
    /** True once the server ended the response. */
    ended: () => serverEnded,
    async until(pred: (e: Sse) => boolean, ms = 15_000): Promise<Sse> {
      const deadline = Date.now() + ms;
      while (Date.now() < deadline) {
        const hit = events.find(pred);
        if (hit) return hit;
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error(`no matching event in ${ms} ms; got ${events.map((e) => e.event).join(', ') || 'none'}`);
    },
    /** Waits until the server ends the stream (fails when it stays open `ms`). */
    async closedByServer(ms = 15_000): Promise<void> {
      const timeout = new Promise<'open'>((r) => setTimeout(() => r('open'), ms).unref());
      expect(await Promise.race([pump.then(() => 'done' as const), timeout]), 'the server kept the stream open').toBe(
        'done',
      );
      expect(serverEnded).toBe(true);
    },
    async close() {
      ctrl.abort();
      await pump;
    },
  };
}

/** The body of an answer that is not a stream (for failure messages); a stream is left alone. */
async function peek(res: Response): Promise<string> {
  if (res.status === 200) return '';
  return res.text();
}
