import { describe, expect, it } from 'vitest';
import { unauthorized } from '@kg/contracts';
import { createEventFeed } from '../events/feed';
import { fakePeers, startTestGateway } from '../testing';

const identity = {
  tenantId: 'tnt_01jd8x6q1bf5r3v2m9w7k4t0za',
  subject: 'usr_x',
  credential: { kind: 'api_key' as const, id: 'key_01jd8x6q1bf5r3v2m9w7k4t0za' },
};

/** Reads a whole response body as text (it resolves when the server ends the stream). */
const readAll = async (res: Response) => {
  const chunks: string[] = [];
  const decoder = new TextDecoder();
  for await (const chunk of res.body!) chunks.push(decoder.decode(chunk as Uint8Array, { stream: true }));
  return chunks.join('');
};

describe('GET /events', () => {
  it('re-verifies an API key while its stream is open: refused, the stream ends (revoked) without any revocation event', async () => {
    let revoked = false;
    let asked = 0;
    const feed = createEventFeed();
    const gw = await startTestGateway({
      // No cache, so every check reaches the (fake) auth service; re-checked every second.
      env: { API_KEY_CACHE_TTL_SECONDS: '0' },
      events: feed,
      peers: fakePeers({
        auth: {
          apiKeys: {
            verify: async () => {
              asked++;
              if (revoked) throw unauthorized('Invalid API key');
              return identity;
            },
          },
        },
      }),
    });
    try {
      const res = await gw.fetch('/api/v1/events', { headers: { authorization: 'ApiKey key_x.secret' } });
      expect(res.status).toBe(200);
      const body = readAll(res);
      // Still good at the first re-check: the stream stays open.
      while (asked < 2) await new Promise((r) => setTimeout(r, 50));
      expect(feed.size()).toBe(1);
      revoked = true;
      const text = await body;
      expect(text).toMatch(/event: credential\.ended\ndata: \{"reason":"revoked",.*\}\n\n$/);
      expect(feed.size()).toBe(0);
    } finally {
      await gw.close();
    }
  });

  it('answers 429 problem+json with Retry-After and RateLimit fields past the per-credential cap', async () => {
    const gw = await startTestGateway({
      env: { EVENT_STREAMS_PER_CREDENTIAL: '1', EVENT_STREAMS_PER_TENANT: '5' },
      peers: fakePeers({ auth: { apiKeys: { verify: async () => identity } } }),
    });
    const ctrl = new AbortController();
    try {
      const first = await gw.fetch('/api/v1/events', {
        headers: { authorization: 'ApiKey key_x.secret' },
        signal: ctrl.signal,
      });
      expect(first.status).toBe(200);
      const over = await gw.fetch('/api/v1/events', { headers: { authorization: 'ApiKey key_x.secret' } });
      expect(over.status).toBe(429);
      expect(over.headers.get('content-type')).toContain('application/problem+json');
      expect(over.headers.get('retry-after')).toBe('15');
      expect(over.headers.get('ratelimit-limit')).toBe('1');
      expect(over.headers.get('ratelimit-policy')).toBe('"event-streams-credential";q=1;qu="concurrent-requests"');
      expect(over.headers.get('ratelimit')).toBe('"event-streams-credential";r=0;t=15');
      expect(await over.json()).toMatchObject({
        status: 429,
        detail: expect.stringContaining('At most 1 concurrent event streams per credential'),
      });
    } finally {
      ctrl.abort();
      await gw.close();
    }
  });
});
