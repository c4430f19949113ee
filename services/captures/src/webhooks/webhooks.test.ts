import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Webhook as Verifier } from 'standardwebhooks';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createFsBlobStore } from '@kg/blobs';
import { createMemoryBus, type MemoryBus } from '@kg/bus';
import { capturesApi, TOPICS, type CaptureChangeEvent, type Identity } from '@kg/contracts';
import { newId, openDatabase, type Database } from '@kg/db';
import { createLogger } from '@kg/logger';
import { createAddressPolicy } from '@kg/service-kit';
import { connectService } from '@kg/trpc';
import { capturesMigrations, createCapturesModule, webhooksEnv } from '../module';
import { z } from 'zod';
import { claimDue, logAttempt, ATTEMPTS_KEPT } from '../store/webhooks';
import { createWebhook } from './endpoints';

const alice: Identity = { tenantId: newId('tenant'), subject: 'u1', credential: { kind: 'jwt', id: 'j1' } };
const bob: Identity = { tenantId: newId('tenant'), subject: 'u2', credential: { kind: 'jwt', id: 'j2' } };

interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A real receiver on loopback: answers what `answer` says, records every request. */
function receiver() {
  const got: Received[] = [];
  let answer: (req: http.IncomingMessage, res: http.ServerResponse) => void = (_q, res) => res.writeHead(204).end();
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      got.push({ headers: req.headers, body });
      answer(req, res);
    });
  });
  return {
    got,
    server,
    answer: (f: typeof answer) => (answer = f),
    url: () => `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    listen: () => new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r())),
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

let database: Database;
let bus: MemoryBus;
let dir: string;
let module: Awaited<ReturnType<typeof createCapturesModule>>;
const hook = receiver();

beforeAll(async () => {
  database = await openDatabase({ dataDir: null });
  await database.migrate(capturesMigrations);
  dir = await mkdtemp(path.join(tmpdir(), 'kg-webhooks-'));
  const logger = createLogger('captures', 'silent');
  bus = createMemoryBus(logger);
  module = await createCapturesModule({
    database,
    bus,
    blobs: createFsBlobStore(dir),
    logger,
    webhooks: z.object(webhooksEnv).parse({
      WEBHOOK_ALLOWLIST: '127.0.0.1',
      // Long enough for a receiver on a busy CI machine (2 cores, beside the e2e suite) to answer.
      WEBHOOK_TIMEOUT_MS: '1500',
      WEBHOOK_RETRY_DELAYS_MS: '150',
      WEBHOOK_RETRY_WINDOW_MS: '60000',
    }),
  });
  await bus.start();
  await module.start();
  await hook.listen();
}, 60_000);
afterAll(async () => {
  await module.stop();
  await bus.stop();
  await hook.close();
  await database.close();
  await rm(dir, { recursive: true, force: true });
});
beforeEach(() => {
  hook.got.length = 0;
  hook.answer((_q, res) => res.writeHead(204).end());
});

const api = (who: Identity = alice) =>
  connectService('gateway', 'captures', capturesApi, { kind: 'local', router: module.router }).as(who).webhooks;

const processed = (tenant: Identity, id = newId('event')): CaptureChangeEvent => ({
  id,
  type: 'capture.changed',
  tenant_id: tenant.tenantId,
  occurred_at: new Date().toISOString(),
  version: 3,
  data: {
    capture_id: newId('capture'),
    status: 'processed',
    previous_status: 'processing',
    node_ids: [newId('node')],
    error: null,
  },
});

const publish = (event: CaptureChangeEvent) =>
  bus.publish(TOPICS.captureChanges, [{ key: event.tenant_id, value: event }]);

async function until<T>(check: () => T | Promise<T>, ms = 5000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await check();
    if (v) return v;
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('webhook endpoints', () => {
  it('refuses URLs that resolve to non-public addresses, carry credentials, or are not http(s)', async () => {
    const strict = { ...module.webhooks, policy: createAddressPolicy([]) };
    for (const url of [
      'http://127.0.0.1:9/x',
      'http://10.1.2.3/x',
      'http://[::1]/x',
      'http://169.254.169.254/latest',
      'http://localhost/x',
    ])
      await expect(
        createWebhook(strict, alice.tenantId, { url, event_types: ['node.created'], enabled: true }),
      ).rejects.toThrow(/not public|webhooks go to public/);
    await expect(api().create({ url: 'http://u:p@127.0.0.1/x', event_types: ['node.created'] })).rejects.toThrow(
      /credentials/,
    );
    const invalid = { data: { code: 'BAD_REQUEST' } };
    await expect(api().create({ url: 'ftp://example.com/x', event_types: ['node.created'] })).rejects.toMatchObject(
      invalid,
    );
    // Shaped like a URL but not one (the fuzzer's: a soft hyphen, C1 controls, a lone surrogate, `<`
    // in the host): refused as input, on create and on update, never a TypeError (500).
    for (const url of [
      'http://\u00ad4\u0087\u009fw\u00c1\u00c3\ud83d\ude0d\uda29\ude51<',
      'http://exa mple.com/',
      'http://[::1/x',
    ])
      await expect(api().create({ url, event_types: ['node.created'] }), url).rejects.toMatchObject(invalid);
    await expect(api().create({ url: hook.url(), event_types: [] })).rejects.toMatchObject(invalid);
    await expect(
      api().create({ url: hook.url(), event_types: ['node.created', 'node.created'] }),
    ).rejects.toMatchObject(invalid);
    expect((await api().list({})).data).toEqual([]);
  });

  it('answers NOT_FOUND for another tenant’s endpoint, whatever the operation', async () => {
    const mine = await api().create({ url: hook.url(), event_types: ['node.created'] });
    const theirs = api(bob);
    const id = { id: mine.id };
    for (const call of [
      () => theirs.get(id),
      () => theirs.update({ ...id, changes: { enabled: false } }),
      () => theirs.delete(id),
      () => theirs.rotateSecret({ ...id, options: { overlap_seconds: 0 } }),
      () => theirs.test(id),
      () => theirs.attempts(id),
    ])
      await expect(call()).rejects.toMatchObject({ data: { code: 'NOT_FOUND' } });
    expect((await theirs.list({})).data).toEqual([]);
    expect((await api().get(id)).enabled).toBe(true);
    await api().delete(id);
  });
});

describe('webhook delivery', () => {
  it('delivers a subscribed event once, signed per Standard Webhooks, and a redelivered event adds nothing', async () => {
    const endpoint = await api().create({ url: hook.url(), event_types: ['capture.processed'] });
    expect(endpoint.secret).toMatch(/^whsec_/);
    expect((await api().get({ id: endpoint.id })) as object).not.toHaveProperty('secret');
    const event = processed(alice);
    await publish(event);
    await until(() => hook.got.length === 1);
    const [got] = hook.got;
    const payload = new Verifier(endpoint.secret).verify(got!.body, got!.headers as Record<string, string>) as {
      type: string;
      data: { capture_id: string };
    };
    expect(got!.headers['webhook-id']).toBe(event.id);
    expect(payload.type).toBe('capture.processed');
    expect(payload.data.capture_id).toBe(event.data.capture_id);
    // The bus delivers the same event again (a consumer that crashed before committing its offset).
    await publish(event);
    await publish(processed(bob)); // another tenant's event: not for this endpoint
    await module.dispatcher.drain();
    await new Promise((r) => setTimeout(r, 200));
    expect(hook.got).toHaveLength(1);
    const attempts = await api().attempts({ id: endpoint.id });
    expect(attempts.data).toMatchObject([{ outcome: 'succeeded', http_status: 204, attempt: 1, message_id: event.id }]);
    await api().delete({ id: endpoint.id });
  });

  it('retries while the receiver fails, and delivers once it is back, with the same webhook-id', async () => {
    const endpoint = await api().create({ url: hook.url(), event_types: ['capture.processed'] });
    let down = true;
    hook.answer((_q, res) => res.writeHead(down ? 503 : 200).end());
    const event = processed(alice);
    await publish(event);
    await until(() => hook.got.length >= 2);
    down = false;
    await until(async () => (await api().attempts({ id: endpoint.id })).data[0]?.outcome === 'succeeded');
    expect(new Set(hook.got.map((g) => g.headers['webhook-id']))).toEqual(new Set([event.id]));
    const log = (await api().attempts({ id: endpoint.id })).data;
    expect(log.at(-1)).toMatchObject({ outcome: 'failed', http_status: 503, error: 'HTTP 503' });
    expect(log.at(-1)!.next_attempt_at).not.toBeNull();
    expect((await api().get({ id: endpoint.id })).failing_since).toBeNull();
    await api().delete({ id: endpoint.id });
  });

  it('cuts a receiver that hangs, does not follow a redirect, and disables an endpoint that answers 410', async () => {
    const endpoint = await api().create({ url: hook.url(), event_types: ['capture.processed'] });
    hook.answer(() => undefined); // never answers
    await publish(processed(alice));
    const hung = await until(async () => (await api().attempts({ id: endpoint.id })).data[0]);
    expect(hung).toMatchObject({ outcome: 'failed', http_status: null, error: 'no answer within 1500 ms' });
    expect(hung!.latency_ms).toBeLessThan(3000);

    let followed = false;
    const trap = http.createServer((_q, res) => ((followed = true), res.end())).listen(0, '127.0.0.2');
    hook.answer((_q, res) => res.writeHead(302, { location: `http://10.0.0.1/` }).end());
    await until(async () => (await api().attempts({ id: endpoint.id })).data[0]?.http_status === 302);
    expect((await api().attempts({ id: endpoint.id })).data[0]!.error).toMatch(/redirects are not followed/);
    expect(followed).toBe(false);
    trap.close();

    hook.answer((_q, res) => res.writeHead(410).end());
    await until(async () => !(await api().get({ id: endpoint.id })).enabled);
    const gone = await api().get({ id: endpoint.id });
    expect(gone).toMatchObject({ enabled: false, disabled_reason: 'gone' });
    expect(gone.pending_deliveries).toBe(1);
    // Disabled: nothing more is attempted, and new events are not queued for it.
    const before = hook.got.length;
    await publish(processed(alice));
    await module.dispatcher.drain();
    expect(hook.got.length).toBe(before);
    // Re-enabled by its owner: the pending delivery goes out.
    hook.answer((_q, res) => res.writeHead(200).end());
    await api().update({ id: endpoint.id, changes: { enabled: true } });
    await until(async () => (await api().get({ id: endpoint.id })).pending_deliveries === 0);
    await api().delete({ id: endpoint.id });
  });

  it('disables an endpoint whose attempts all fail for the failure window', async () => {
    const endpoint = await api().create({ url: hook.url(), event_types: ['capture.processed'] });
    hook.answer((_q, res) => res.writeHead(500).end());
    const saved = module.webhooks.failureWindowMs;
    module.webhooks.failureWindowMs = 300;
    try {
      await publish(processed(alice));
      await until(async () => (await api().get({ id: endpoint.id })).disabled_reason === 'failing');
    } finally {
      module.webhooks.failureWindowMs = saved;
    }
    await api().delete({ id: endpoint.id });
  });

  it('signs with both secrets during a rotation’s overlap, and with the new one only without overlap', async () => {
    const endpoint = await api().create({ url: hook.url(), event_types: ['capture.processed'] });
    const rotated = await api().rotateSecret({ id: endpoint.id, options: { overlap_seconds: 3600 } });
    expect(rotated.secret).not.toBe(endpoint.secret);
    expect(rotated.previous_secret_expires_at).not.toBeNull();
    await api().test({ id: endpoint.id });
    await until(() => hook.got.length === 1);
    const [got] = hook.got;
    const headers = got!.headers as Record<string, string>;
    expect(headers['webhook-signature']!.split(' ')).toHaveLength(2);
    expect(new Verifier(rotated.secret).verify(got!.body, headers)).toMatchObject({ type: 'webhook.test' });
    expect(new Verifier(endpoint.secret).verify(got!.body, headers)).toMatchObject({ type: 'webhook.test' });

    const again = await api().rotateSecret({ id: endpoint.id, options: { overlap_seconds: 0 } });
    await api().test({ id: endpoint.id });
    await until(() => hook.got.length === 2);
    const second = hook.got[1]!;
    const h2 = second.headers as Record<string, string>;
    expect(new Verifier(again.secret).verify(second.body, h2)).toMatchObject({ type: 'webhook.test' });
    expect(() => new Verifier(rotated.secret).verify(second.body, h2)).toThrow();
    await api().delete({ id: endpoint.id });
  });

  it('attempts again, with the same webhook-id, a delivery whose dispatcher died holding it', async () => {
    const endpoint = await api().create({ url: hook.url(), event_types: ['capture.processed'] });
    await module.dispatcher.stop();
    try {
      const event = processed(alice);
      await publish(event);
      // A dispatcher claims it with a short lease, then dies before sending (SIGKILL mid-batch).
      const claimed = await until(async () => {
        const taken = await claimDue(database.db, new Date(), new Date(Date.now() + 300), 50);
        return taken.length ? taken : null;
      });
      expect(claimed!.map((c) => c.delivery.messageId)).toEqual([event.id]);
      expect(await claimDue(database.db, new Date(), new Date(Date.now() + 300), 50)).toEqual([]); // held
      await new Promise((r) => setTimeout(r, 350));
      expect(await module.dispatcher.drain()).toBe(1);
      expect(hook.got.map((g) => g.headers['webhook-id'])).toEqual([event.id]);
    } finally {
      module.dispatcher.start();
    }
    await api().delete({ id: endpoint.id });
  });

  it("keeps delivering to others while one tenant's receiver hangs (four attempts in flight per endpoint)", async () => {
    const hanging = receiver();
    hanging.answer(() => undefined);
    await hanging.listen();
    const slow = await api(bob).create({ url: hanging.url(), event_types: ['capture.processed'] });
    const fine = await api().create({ url: hook.url(), event_types: ['capture.processed'] });
    await module.dispatcher.stop();
    try {
      for (let i = 0; i < 20; i++) await publish(processed(bob));
      await publish(processed(alice));
      await until(async () => (await api(bob).get({ id: slow.id })).pending_deliveries === 20);
      await until(async () => (await api().get({ id: fine.id })).pending_deliveries === 1);
      const started = Date.now();
      module.dispatcher.start();
      await until(() => hook.got.length === 1);
      // Behind twenty attempts of 1,500 ms (WEBHOOK_TIMEOUT_MS) on sixteen lanes it would wait
      // at least 1,500 ms: it came before the first of them could end.
      expect(Date.now() - started).toBeLessThan(1500);
      expect(hanging.got.length).toBeLessThanOrEqual(4);
    } finally {
      module.dispatcher.start();
      await api(bob).delete({ id: slow.id });
      await api().delete({ id: fine.id });
      await hanging.close();
    }
  });

  it('keeps the last 100 attempts of an endpoint', async () => {
    const endpoint = await api().create({ url: hook.url(), event_types: ['node.created'] });
    for (let i = 1; i <= ATTEMPTS_KEPT + 5; i++)
      await logAttempt(database.db, {
        tenantId: alice.tenantId,
        endpointId: endpoint.id,
        deliveryId: newId('webhookDelivery'),
        messageId: `evt_${i}`,
        eventType: 'node.created',
        attempt: 1,
        attemptedAt: new Date(),
        outcome: 'succeeded',
        httpStatus: 200,
        latencyMs: 1,
        error: null,
      });
    const log = (await api().attempts({ id: endpoint.id })).data;
    expect(log).toHaveLength(ATTEMPTS_KEPT);
    expect(log[0]!.message_id).toBe(`evt_${ATTEMPTS_KEPT + 5}`);
    expect(log.at(-1)!.message_id).toBe('evt_6');
    await api().delete({ id: endpoint.id });
  });
});
