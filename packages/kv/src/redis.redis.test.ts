import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll } from 'vitest';
import { kvContract } from './contract-suite';
import type { KvStore } from './port';
import { createRedisKv } from './redis';

/**
 * The Redis adapter against a real Redis: scripts/infra/redis.sh starts it (installing
 * Debian's redis-server once); when it cannot, this suite fails with the script's output.
 * A server this suite started is stopped after it.
 */
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const script = path.join(root, 'scripts/infra/redis.sh');
let kv: KvStore;
let startedHere = false;

beforeAll(() => {
  try {
    execFileSync('bash', [script, 'status'], { stdio: 'ignore' });
  } catch {
    startedHere = true;
  }
  execFileSync('bash', [script, 'start'], { stdio: 'inherit' });
  kv = createRedisKv(`redis://127.0.0.1:${process.env['KG_REDIS_PORT'] ?? '56379'}`);
}, 600_000);
afterAll(async () => {
  await kv?.close();
  if (startedHere) execFileSync('bash', [script, 'stop'], { stdio: 'inherit' });
});

kvContract('Redis', () => kv);
