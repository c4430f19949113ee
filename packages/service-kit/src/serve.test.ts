import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { initTRPC } from '@trpc/server';
import { createLogger } from '@kg/logger';
import { serveService } from './serve';

/** A service whose readiness the test flips. */
let ready = true;
let degraded: string[] = [];
const module = {
  name: 'probe',
  router: initTRPC.create().router({}),
  start: async () => undefined,
  stop: async () => undefined,
  ready: async () => ready,
  degraded: async () => degraded,
};

let served: Awaited<ReturnType<typeof serveService>>;
let base: string;
beforeAll(async () => {
  // Internal-token verification is not exercised here (no /trpc call), so no keys are needed.
  served = await serveService({
    module,
    port: 0,
    host: '127.0.0.1',
    metricsPort: 0,
    logger: createLogger('test', 'silent'),
  } as unknown as Parameters<typeof serveService>[0]);
  const address = served.server.address();
  base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
});
afterAll(() => served.close());

describe('serveService', () => {
  it('serves /metrics on the metrics port only: the service port answers 404', async () => {
    await fetch(`${base}/healthz`);
    expect((await fetch(`${base}/metrics`)).status).toBe(404);
    expect(served.metricsPort).toBeGreaterThan(0);
    const res = await fetch(`http://127.0.0.1:${served.metricsPort}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await res.text();
    expect(text).toContain('# TYPE kg_http_request_duration_seconds histogram');
    expect(text).toContain('service="probe"');
    expect((await fetch(`http://127.0.0.1:${served.metricsPort}/healthz`)).status).toBe(404);
  });

  it('/readyz follows the module’s own readiness', async () => {
    ready = true;
    expect((await fetch(`${base}/readyz`)).status).toBe(200);
    ready = false;
    const res = await fetch(`${base}/readyz`);
    expect(res.status).toBe(503);
    expect(await res.json()).toEqual({ status: 'not ready', service: 'probe' });
    ready = true;
  });

  it('/readyz stays 200 with a degraded dependency and names it', async () => {
    degraded = ['vectors'];
    const res = await fetch(`${base}/readyz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ready', service: 'probe', degraded: ['vectors'] });
    degraded = [];
    expect(await (await fetch(`${base}/readyz`)).json()).toEqual({ status: 'ready', service: 'probe' });
  });
});

describe('serveService shutdown with a drain (SHUTDOWN_DRAIN_MS)', () => {
  it('keeps answering after close() for the drain, not ready and closing each connection, then stops listening', async () => {
    const draining = await serveService({
      module: { ...module, name: 'drained' },
      port: 0,
      host: '127.0.0.1',
      metricsPort: 0,
      logger: createLogger('test', 'silent'),
      drainMs: 1500,
    } as unknown as Parameters<typeof serveService>[0]);
    const address = draining.server.address();
    const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    expect((await fetch(`${url}/readyz`)).status).toBe(200);
    const closed = draining.close();
    // The caller behind a Service may still be sent here: it is answered, on a connection that then ends.
    const health = await fetch(`${url}/healthz`);
    expect(health.status).toBe(200);
    expect(health.headers.get('connection')).toBe('close');
    const readiness = await fetch(`${url}/readyz`);
    expect(readiness.status).toBe(503);
    expect(await readiness.json()).toEqual({ status: 'not ready', service: 'drained' });
    await closed;
    await expect(fetch(`${url}/healthz`)).rejects.toThrow();
  });
});

describe('serveService on a taken port', () => {
  it('refuses to start with an error that names PORT, not a bare EADDRINUSE', async () => {
    const address = served.server.address();
    const taken = typeof address === 'object' && address ? address.port : 0;
    await expect(
      serveService({
        module: { ...module, name: 'second' },
        port: taken,
        host: '127.0.0.1',
        metricsPort: 0,
        logger: createLogger('test', 'silent'),
      } as unknown as Parameters<typeof serveService>[0]),
    ).rejects.toThrow(`the port 127.0.0.1:${taken} is in use: set PORT to a free port`);
  });
});
