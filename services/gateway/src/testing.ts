import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { createMemoryKv } from '@kg/kv';
import { createGatewayApp, type GatewayDeps } from './app';
import { gatewayHttpSchema } from './config';
import type { GatewayPeers } from './peers';

/** One parsed pino line (the fields the tests read). */
export interface LogLine {
  level: number;
  msg?: string;
  req?: { id?: string; method?: string; path?: string };
  err?: { stack?: string };
  [field: string]: unknown;
}

/** A gateway on a free loopback port, with its log lines captured as parsed JSON. */
export async function startTestGateway(overrides: Partial<GatewayDeps> & { env?: Record<string, string> } = {}) {
  const lines: LogLine[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n')) if (line) lines.push(JSON.parse(line) as LogLine);
      done();
    },
  });
  const { env, ...deps } = overrides;
  const app = createGatewayApp({
    config: gatewayHttpSchema.parse(env ?? {}),
    peers: {} as GatewayPeers,
    kv: createMemoryKv(),
    logger: pino({ level: 'info' }, sink),
    keys: async () => {
      throw new Error('no such key');
    },
    ready: async () => true,
    ...deps,
  });
  const server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    base,
    lines,
    fetch: (path: string, init?: RequestInit) => fetch(base + path, init),
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/** Peers that answer what a test needs; anything else is missing (a test failure, not a fake success). */
export const fakePeers = (peers: Record<string, Record<string, unknown>>): GatewayPeers =>
  Object.fromEntries(
    Object.entries(peers).map(([name, api]) => [name, { service: name, as: () => api, asJson: () => jsonOf(api) }]),
  ) as never;

/** The fake's functions answering JSON text, as `asJson` does. */
function jsonOf(api: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(api).map(([key, value]) => [
      key,
      typeof value === 'function'
        ? async (input: unknown) => JSON.stringify(await (value as (i: unknown) => unknown)(input))
        : jsonOf(value as Record<string, unknown>),
    ]),
  );
}
