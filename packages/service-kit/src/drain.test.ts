import { createServer, Agent, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { drainOnShutdown } from './drain';

const servers: Server[] = [];
afterEach(() => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    s.close();
  }
});

function listen(): Promise<{ server: Server; port: number }> {
  const server = createServer((_req, res) => res.end('ok'));
  servers.push(server);
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve({ server, port: (server.address() as AddressInfo).port })),
  );
}

function get(port: number, agent: Agent): Promise<{ status: number; connection: string | undefined }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: '/', agent }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, connection: res.headers.connection }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('drainOnShutdown', () => {
  it('keeps answering during the drain, kept-alive and new connections alike, each answer ending its connection', async () => {
    const { server, port } = await listen();
    const drain = drainOnShutdown(server, { drainMs: 300, forceMs: 1000 });
    const agent = new Agent({ keepAlive: true });
    expect(await get(port, agent)).toEqual({ status: 200, connection: 'keep-alive' });
    const stopped = drain.shutdown();
    expect(drain.draining()).toBe(true);
    // The connection kept alive from before the signal, then new ones: all answered.
    for (let i = 0; i < 5; i++) expect(await get(port, agent)).toEqual({ status: 200, connection: 'close' });
    await stopped;
    await expect(get(port, new Agent())).rejects.toThrow(/ECONNREFUSED/);
    agent.destroy();
  });

  it('closes at once with no drain, and a second signal waits for the same close', async () => {
    const { server, port } = await listen();
    const drain = drainOnShutdown(server, { drainMs: 0, forceMs: 1000 });
    const first = drain.shutdown();
    expect(drain.shutdown()).toBe(first);
    await first;
    await expect(get(port, new Agent())).rejects.toThrow(/ECONNREFUSED/);
  });
});
