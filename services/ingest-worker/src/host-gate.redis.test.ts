import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe } from 'vitest';
import { createRedisKv, type KvStore } from '@kg/kv';
import { createHostGate } from './host-gate';
import { hostGateContract } from './host-gate.suite';

/**
 * The per-host limits as two worker replicas share them: two gates on two Redis clients of a
 * real Redis (scripts/infra/redis.sh starts it; a server this suite started is stopped after it).
 */
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const script = path.join(root, 'scripts/infra/redis.sh');
const clients: KvStore[] = [];
let startedHere = false;

beforeAll(() => {
  try {
    execFileSync('bash', [script, 'status'], { stdio: 'ignore' });
  } catch {
    startedHere = true;
  }
  execFileSync('bash', [script, 'start'], { stdio: 'inherit' });
  const url = `redis://127.0.0.1:${process.env['KG_REDIS_PORT'] ?? '56379'}`;
  clients.push(createRedisKv(url), createRedisKv(url));
}, 600_000);
afterAll(async () => {
  for (const c of clients) await c.close();
  if (startedHere) execFileSync('bash', [script, 'stop'], { stdio: 'inherit' });
});

describe('host gate (Redis, two replicas)', () =>
  hostGateContract('Redis', (opts) => [
    createHostGate({ kv: clients[0]!, ...opts }),
    createHostGate({ kv: clients[1]!, ...opts }),
  ]));
