import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createLogger } from '@kg/logger';
import { standaloneConfigSchema } from './config';
import { startHost } from './host';

const json = { 'content-type': 'application/json' };

/** The embedded mode keeps everything under DATA_DIR: a restart loses nothing, keys included. */
describe('one-process host', () => {
  it('keeps nodes and API keys across a restart', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'kg-host-'));
    const config = standaloneConfigSchema.parse({
      PORT: '0',
      METRICS_PORT: '0',
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
    });
    const logger = createLogger('test', 'silent');

    const first = await startHost(config, logger);
    const api = (host: typeof first) => `http://127.0.0.1:${host.port}/api/v1`;
    // /metrics is served on its own port only, never on the public one.
    expect((await fetch(`http://127.0.0.1:${first.port}/metrics`)).status).toBe(404);
    const scraped = await fetch(`http://127.0.0.1:${first.metricsPort}/metrics`);
    expect(scraped.status).toBe(200);
    expect(scraped.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(await scraped.text()).toContain('process_cpu_user_seconds_total');
    await fetch(`${api(first)}/auth/magic-link`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ email: 'r@example.com' }),
    });
    const { readdirSync, readFileSync } = await import('node:fs');
    const mail = readdirSync(path.join(dataDir, 'outbox')).find((f) => f.endsWith('.json'))!;
    const { token } = JSON.parse(readFileSync(path.join(dataDir, 'outbox', mail), 'utf8')) as { token: string };
    const pair = (await (
      await fetch(`${api(first)}/auth/magic-link/verify`, {
        method: 'POST',
        headers: json,
        body: JSON.stringify({ token }),
      })
    ).json()) as { access_token: string };
    const bearer = { ...json, authorization: `Bearer ${pair.access_token}` };
    const key = (
      (await (
        await fetch(`${api(first)}/auth/api-keys`, { method: 'POST', headers: bearer, body: '{"name":"k"}' })
      ).json()) as { key: string }
    ).key;
    const node = (await (
      await fetch(`${api(first)}/nodes`, { method: 'POST', headers: bearer, body: '{"title":"Persistent"}' })
    ).json()) as { id: string };
    await first.close();

    const second = await startHost(config, logger);
    try {
      const viaKey = await fetch(`${api(second)}/nodes/${node.id}`, { headers: { authorization: `ApiKey ${key}` } });
      expect(viaKey.status).toBe(200);
      expect(await viaKey.json()).toMatchObject({ id: node.id, title: 'Persistent' });
      const viaToken = await fetch(`${api(second)}/nodes`, { headers: bearer });
      expect(((await viaToken.json()) as { total: number }).total).toBe(1);
    } finally {
      await second.close();
    }
  }, 60_000);
});
