import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createMetrics, serveMetrics } from './metrics';

const open: Server[] = [];
afterEach(() => {
  for (const s of open.splice(0)) s.close();
});

describe('serveMetrics', () => {
  it('names the setting to change when its port is taken (a second server on one machine)', async () => {
    const taken = createServer();
    open.push(taken);
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as AddressInfo).port;
    const { registry } = createMetrics('probe');
    await expect(serveMetrics(registry, port, '127.0.0.1')).rejects.toThrow(
      `the metrics port 127.0.0.1:${port} is in use: set METRICS_PORT to a free port, or to 0 to pick one`,
    );
  });
});
