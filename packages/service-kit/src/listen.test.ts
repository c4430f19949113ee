import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { listen } from './listen';

const servers: Server[] = [];
afterAll(() => Promise.all(servers.map((s) => new Promise((r) => s.close(r)))));

describe('listen', () => {
  it('resolves once listening, on the port asked (0: a free one)', async () => {
    const server = createServer((_req, res) => res.end('ok'));
    servers.push(server);
    await listen(server, { port: 0, host: '127.0.0.1' });
    const { port } = server.address() as AddressInfo;
    expect(await (await fetch(`http://127.0.0.1:${port}/`)).text()).toBe('ok');
  });

  it('a taken port rejects naming the setting to change, not a bare EADDRINUSE', async () => {
    const first = createServer();
    servers.push(first);
    await listen(first, { port: 0, host: '127.0.0.1' });
    const { port } = first.address() as AddressInfo;
    await expect(listen(createServer(), { port, host: '127.0.0.1' })).rejects.toThrow(
      `the port 127.0.0.1:${port} is in use: set PORT to a free port`,
    );
    await expect(
      listen(createServer(), { port, host: '127.0.0.1', setting: 'METRICS_PORT', hint: ', or to 0 to pick one' }),
    ).rejects.toThrow(
      `the metrics port 127.0.0.1:${port} is in use: set METRICS_PORT to a free port, or to 0 to pick one`,
    );
  });

  it('other errors pass through as they are', async () => {
    await expect(listen(createServer(), { port: 0, host: '203.0.113.7' })).rejects.toMatchObject({
      code: 'EADDRNOTAVAIL',
    });
  });
});
