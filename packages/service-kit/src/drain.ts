import type { Server } from 'node:http';

export interface Drain {
  /** True from the shutdown signal on: /readyz answers 503 so the endpoints drop this pod. */
  readonly draining: () => boolean;
  /** Starts the shutdown: drain for `drainMs`, then close; resolves once the server has closed. */
  readonly shutdown: () => Promise<void>;
}

/**
 * A graceful stop behind a load balancer (a Kubernetes Service): the signal and the removal of
 * the pod from the Service's endpoints race, so for `drainMs` the server keeps answering, new
 * connections included, while every answer carries `Connection: close` (a client's kept-alive
 * connection ends after its next answer and the client reconnects to another pod) and
 * readiness fails. Then it stops listening, closes idle connections, and cuts what is left
 * (event streams) `forceMs` later, if given (otherwise in-flight requests finish).
 */
export function drainOnShutdown(server: Server, opts: { drainMs: number; forceMs?: number }): Drain {
  let draining = false;
  let done: Promise<void> | undefined;
  // First of the 'request' listeners, so the header is set before any handler answers.
  server.prependListener('request', (_req, res) => {
    if (draining) res.setHeader('Connection', 'close');
  });
  return {
    draining: () => draining,
    shutdown: () => {
      draining = true;
      done ??= new Promise<void>((resolve) => {
        setTimeout(() => {
          server.close(() => resolve());
          server.closeIdleConnections();
          if (opts.forceMs !== undefined) setTimeout(() => server.closeAllConnections(), opts.forceMs).unref();
        }, opts.drainMs).unref();
      });
      return done;
    },
  };
}
