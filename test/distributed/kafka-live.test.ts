import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { typeid } from 'typeid-js';
import { TOPICS, type ApiKeyEvent } from '@kg/contracts';
import { createKafkaBus } from '@kg/bus';
import { createLogger } from '@kg/logger';

const revoked = (): ApiKeyEvent => ({
  id: typeid('evt').toString(),
  type: 'api_key.revoked',
  tenant_id: typeid('tnt').toString(),
  occurred_at: new Date().toISOString(),
  data: { api_key_id: typeid('key').toString() },
});

/**
 * A subscription that starts at the newest message (a gateway's own group) says when it is
 * live. The promise it makes is checked on the real broker: an event published the moment
 * it is live is received. A gateway caches verified API keys only from then on.
 */
describe('a live feed on Kafka', () => {
  const bus = createKafkaBus({
    brokers: inject('kafkaBrokers').split(','),
    clientId: 'kafka-live-test',
    logger: createLogger('kafka-live-test', 'warn'),
  });
  afterAll(() => bus.stop(), 30_000);

  it('receives every event published from the moment it says it is live, and says so again after a stop', async () => {
    const groups = [1, 2, 3].map(() => `kafka-live-test-${randomUUID()}`);
    const seen = new Set<string>();
    const liveness = new Map<string, boolean[]>();
    const live = groups.map(
      (group) =>
        new Promise<void>((resolve) =>
          bus.subscribe({
            topic: TOPICS.apiKeys,
            group,
            fromBeginning: false,
            maxAttempts: 1,
            handler: async (event) => void seen.add(`${group}/${event.id}`),
            onLive: (isLive) => {
              liveness.set(group, [...(liveness.get(group) ?? []), isLive]);
              if (isLive) resolve();
            },
          }),
        ),
    );
    await bus.start();
    // Each group publishes its own event the moment it is live: none of them may be skipped.
    const published = await Promise.all(
      live.map(async (isLive, i) => {
        await isLive;
        const event = revoked();
        await bus.publish(TOPICS.apiKeys, [{ key: event.tenant_id, value: event }]);
        return `${groups[i]}/${event.id}`;
      }),
    );
    const deadline = Date.now() + 30_000;
    while (published.some((p) => !seen.has(p)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(published.filter((p) => !seen.has(p))).toEqual([]);
    await bus.stop();
    for (const group of groups) expect(liveness.get(group)).toEqual([true, false]);
  }, 90_000);
});
