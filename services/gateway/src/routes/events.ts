import { z } from 'zod';
import type { EventFeed, LiveEvent } from '../events/feed';
import { defineRoute, type Route } from './route';

/** How often a comment line keeps idle streams (and the proxies between) open. */
const HEARTBEAT_MS = 15_000;

/** One server-sent event: the event id (evt_…), its type, and the bus event without the tenant. */
export function formatEvent(event: LiveEvent): string {
  const { tenant_id: _tenant, ...rest } = event;
  return `id: ${event.id}\nevent: ${event.type}\ndata: ${JSON.stringify(rest)}\n\n`;
}

/**
 * GET /events (extension): the tenant's capture status changes and node changes as
 * server-sent events, while the stream is open. Authenticated like every request.
 */
export const eventRoutes = (feed: EventFeed): Route[] => [
  defineRoute({
    method: 'get',
    path: '/events',
    operationId: 'streamEvents',
    summary:
      'Live updates (extension): server-sent events `capture.changed`, `capture.deleted`, `node.created`, `node.updated`, `node.deleted` of your tenant',
    tag: 'Events',
    auth: 'required',
    service: 'captures',
    query: z.object({}).strict(),
    success: {
      status: 200,
      description:
        'text/event-stream: each event has `id` (evt_…), `event` (its type) and `data` (JSON: id, type, occurred_at, version, data). ' +
        'A comment line every 15 s keeps the stream open. No history is replayed: re-read state after reconnecting.',
      media: ['text/event-stream'],
    },
    async handle(req) {
      const tenantId = req.identity!.tenantId;
      return {
        status: 200,
        headers: {
          'Content-Type': 'text/event-stream; charset=utf-8',
          'Cache-Control': 'no-cache, no-transform',
          Connection: 'keep-alive',
          'X-Accel-Buffering': 'no',
        },
        stream: (res) =>
          new Promise<void>((resolve) => {
            res.flushHeaders();
            res.write('retry: 3000\n: connected\n\n');
            const stop = feed.subscribe(tenantId, (event) => res.write(formatEvent(event)));
            const beat = setInterval(() => res.write(': keep-alive\n\n'), HEARTBEAT_MS);
            const end = () => {
              clearInterval(beat);
              stop();
              resolve();
            };
            req.raw.once('close', end);
            res.once('error', end);
          }),
      };
    },
  }),
];
