import { TOPICS } from '@kg/contracts';
import type { EventBus } from '@kg/bus';
import type { Logger } from '@kg/logger';
import type { ApiKeyCache } from './api-key-cache';

/**
 * Drops revoked keys from `cache` as the auth service's `api_key.revoked` events arrive.
 * Every gateway replica must see every revocation: in the distributed mode each uses a
 * consumer group of its own, from the newest message on (a fresh process has an empty cache).
 * The cache holds nothing until that group is live (it would miss a revocation published
 * while it joins), and nothing again while it rejoins.
 */
export async function revocationsFromBus(bus: EventBus, cache: ApiKeyCache, group: string, logger: Logger) {
  cache.setLive(false);
  await bus.subscribe({
    topic: TOPICS.apiKeys,
    group,
    fromBeginning: false,
    maxAttempts: 1,
    onLive: (live) => {
      cache.setLive(live);
      logger.info(
        { group },
        live ? 'revocation feed live: API keys are cached' : 'revocation feed not live: API keys are not cached',
      );
    },
    handler: async (event) => {
      cache.revoke(event.data.api_key_id);
      logger.debug({ apiKeyId: event.data.api_key_id }, 'revoked API key dropped from the cache');
    },
  });
}
