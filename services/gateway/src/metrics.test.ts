import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryKv } from '@kg/kv';
import { createLogger } from '@kg/logger';
import { createMetrics, serveMetrics, type MetricsServer } from '@kg/service-kit';
import { createGatewayApp } from './app';
import { gatewayHttpSchema } from './config';
import type { GatewayPeers } from './peers';

let server: Server;
let metricsServer: MetricsServer;
let base: string;

beforeAll(async () => {
  const config = gatewayHttpSchema.parse({ METRICS_PORT: '0' });
  const metrics = createMetrics('gateway');
  const app = createGatewayApp({
    config,
    peers: {} as GatewayPeers,
    kv: createMemoryKv(),
    logger: createLogger('test', 'silent'),
    keys: async () => {
      throw new Error('no keys');
    },
    ready: async () => true,
    metrics,
  });
  server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  metricsServer = await serveMetrics(metrics.registry, config.METRICS_PORT, '127.0.0.1');
});
afterAll(async () => {
  await new Promise<void>((r) => server.close(() => r()));
  await metricsServer.close();
});

describe('gateway metrics', () => {
  it('GET /metrics on the public port answers 404 problem+json', async () => {
    const res = await fetch(`${base}/metrics`);
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
  });

  it('the metrics port answers Prometheus text with the public requests counted', async () => {
    await fetch(`${base}/healthz`);
    const res = await fetch(`http://127.0.0.1:${metricsServer.port}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await res.text();
    expect(text).toMatch(/kg_http_request_duration_seconds_count\{[^}]*route="\/healthz"[^}]*\} 1/);
    expect(text).toContain('service="gateway"');
  });
});
