import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook as Verifier } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { cliUser, kg } from './support/cli';
import { remember } from './support/client';

// Every step is a kg process (a second or more on a loaded machine).
vi.setConfig({ testTimeout: 120_000 });

interface Received {
  headers: Record<string, string>;
  body: string;
}

/** A receiver on loopback (the e2e server allow-lists 127.0.0.1 for webhooks) that answers 204. */
const received: Received[] = [];
const receiver = http.createServer((req, res) => {
  let body = '';
  req.on('data', (c: Buffer) => (body += c.toString()));
  req.on('end', () => {
    received.push({ headers: req.headers as Record<string, string>, body });
    res.writeHead(204).end();
  });
});
let hookUrl = '';

let config: string;
const run = (args: string[], as = config) => kg(args, { config: as, timeoutMs: 90_000 });

/** The secret a command printed on stdout, remembered so the log test proves the server never logged it. */
function secretOf(stdout: string): string {
  const secret = stdout.trim();
  expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]+={0,2}$/);
  remember(secret, secret.slice('whsec_'.length));
  return secret;
}

/** The delivery the receiver got with this `webhook-id`, verified with each secret given. */
async function deliveryOf(messageId: string, ...secrets: string[]): Promise<Received> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const got = received.find((r) => r.headers['webhook-id'] === messageId);
    if (got) {
      for (const secret of secrets) expect(new Verifier(secret).verify(got.body, got.headers)).toBeTruthy();
      return got;
    }
    if (Date.now() > deadline) throw new Error(`the receiver got no delivery ${messageId}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

beforeAll(async () => {
  ({ config } = await cliUser('webhooks'));
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks/kg`;
});
afterAll(
  () =>
    new Promise<void>((r) => {
      receiver.closeAllConnections();
      receiver.close(() => r());
    }),
);

describe('kg webhooks', () => {
  let id = '';
  let secret = '';

  it('add prints the signing secret once, with a note saying so; list shows the endpoint', async () => {
    const added = await run([
      'webhooks',
      'add',
      hookUrl,
      '--events',
      'node.created,capture.processed',
      '--description',
      'e2e receiver',
    ]);
    expect(added.code, added.stderr).toBe(0);
    secret = secretOf(added.stdout);
    expect(added.stderr).toMatch(
      /Webhook wh_\w+ created for http:\/\/127\.0\.0\.1:\d+\/hooks\/kg \(node\.created, capture\.processed\)/,
    );
    expect(added.stderr).toContain('shown only this once');
    id = /Webhook (wh_\w+)/.exec(added.stderr)![1]!;

    const table = await run(['webhooks', 'list']);
    expect(table.code, table.stderr).toBe(0);
    const row = table.stdout.split('\n').find((l) => l.startsWith(id))!;
    expect(row).toContain(hookUrl);
    expect(row).toContain('node.created, capture.processed');
    expect(row).toContain('enabled');
    expect(row).toContain(`${secret.slice(0, 12)}…`);
    expect(table.stdout).not.toContain(secret); // the secret itself is never shown again

    const listed = (await run(['webhooks', 'list', '--json'])).json();
    expect(listed).toEqual([
      expect.objectContaining({
        id,
        url: hookUrl,
        description: 'e2e receiver',
        event_types: ['node.created', 'capture.processed'],
        enabled: true,
        disabled_reason: null,
        secret_prefix: secret.slice(0, 12),
        pending_deliveries: 0,
      }),
    ]);
    expect(JSON.stringify(listed)).not.toContain(secret);
  });

  it('test --wait sends a signed webhook.test and prints its succeeded attempt; attempts lists it', async () => {
    const tested = await run(['webhooks', 'test', id, '--wait', '--json']);
    expect(tested.code, tested.stderr).toBe(0);
    const attempt = tested.json();
    expect(attempt).toMatchObject({ event_type: 'webhook.test', attempt: 1, outcome: 'succeeded', http_status: 204 });
    const got = await deliveryOf(attempt.message_id, secret);
    expect(JSON.parse(got.body)).toMatchObject({ type: 'webhook.test', data: { endpoint_id: id } });

    const table = await run(['webhooks', 'attempts', id]);
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toMatch(/TIME\s+EVENT\s+TRY\s+OUTCOME\s+HTTP\s+LATENCY\s+ERROR\s+NEXT TRY/);
    expect(table.stdout).toMatch(/webhook\.test\s+1\s+succeeded\s+204\s+\d+ ms/);
    const json = (await run(['webhooks', 'attempts', id, '--json'])).json();
    expect(json[0]).toMatchObject({
      delivery_id: attempt.delivery_id,
      outcome: 'succeeded',
      error: null,
      next_attempt_at: null,
    });

    // Without --wait: the delivery id, and where to look.
    const queued = await run(['webhooks', 'test', id]);
    expect(queued.code, queued.stderr).toBe(0);
    expect(queued.stdout.trim()).toMatch(/^whd_\w+$/);
    expect(queued.stderr).toContain(`kg webhooks attempts ${id}`);
  });

  it('rotate prints a new secret once; during the overlap deliveries carry both signatures', async () => {
    const rotated = await run(['webhooks', 'rotate', id, '--overlap', '600']);
    expect(rotated.code, rotated.stderr).toBe(0);
    const fresh = secretOf(rotated.stdout);
    expect(fresh).not.toBe(secret);
    expect(rotated.stderr).toContain('shown only this once');
    expect(rotated.stderr).toMatch(/signed with the previous secret too until \d{4}-\d\d-\d\d /);

    const attempt = (await run(['webhooks', 'test', id, '--wait', '--json'])).json();
    expect(attempt.outcome).toBe('succeeded');
    const got = await deliveryOf(attempt.message_id, fresh, secret);
    expect(got.headers['webhook-signature']!.split(' ')).toHaveLength(2);

    const shown = await run(['webhooks', 'show', id]);
    expect(shown.stdout).toMatch(new RegExp(`secret\\s+${fresh.slice(0, 12).replace(/[+/]/g, '\\$&')}…`));
    expect(shown.stdout).toMatch(/previous secret until\s+\d{4}-/);
    expect(shown.stdout).not.toContain(fresh);
  });

  it('update --disable pauses it, --enable resumes it; update changes events and description', async () => {
    const paused = await run(['webhooks', 'update', id, '--disable']);
    expect(paused.code, paused.stderr).toBe(0);
    expect(paused.stdout).toMatch(/state\s+paused/);
    expect((await run(['webhooks', 'show', id, '--json'])).json()).toMatchObject({
      enabled: false,
      disabled_reason: 'by_user',
    });
    // A paused endpoint is not told to re-enable as if the server had disabled it.
    expect(paused.stderr).not.toContain('--enable');

    const resumed = await run(['webhooks', 'update', id, '--enable', '--events', 'node.deleted', '--description', '']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout).toMatch(/state\s+enabled/);
    expect((await run(['webhooks', 'show', id, '--json'])).json()).toMatchObject({
      enabled: true,
      disabled_reason: null,
      event_types: ['node.deleted'],
      description: null,
    });

    const nothing = await run(['webhooks', 'update', id]);
    expect(nothing.code).toBe(2);
    expect(nothing.stderr).toContain('name something to change');
  });

  it('hostile: private addresses are refused with the server’s reason; another tenant’s id is not found', async () => {
    for (const url of ['http://169.254.169.254/latest/meta-data', 'http://10.0.0.1/hook']) {
      const refused = await run(['webhooks', 'add', url, '--events', 'node.created']);
      expect(refused.code, refused.stderr).toBe(1);
      expect(refused.stdout).toBe(''); // no secret
      expect(refused.stderr).toMatch(
        /^Error: .*is not public \([^)]+\); webhooks go to public addresses only.*\(HTTP 400\)$/m,
      );
      expect(refused.stderr).toMatch(/^ {2}url: .*is not public/m);
    }
    const asJson = await run(['webhooks', 'update', id, '--url', 'http://10.0.0.1/hook', '--json']);
    expect(asJson.code).toBe(1);
    expect(JSON.parse(asJson.stderr)).toMatchObject({ status: 400, errors: [{ path: 'url' }] });

    const unknownType = await run(['webhooks', 'add', hookUrl, '--events', 'node.created,node.exploded']);
    expect(unknownType.code).toBe(2);
    expect(unknownType.stderr).toContain('unknown event type node.exploded');

    const other = await cliUser('webhooks-other');
    for (const args of [
      ['show', id],
      ['test', id],
      ['attempts', id],
      ['rotate', id],
      ['update', id, '--disable'],
      ['rm', id],
    ]) {
      const res = await run(['webhooks', ...args], other.config);
      expect(res.code, `${args.join(' ')}: ${res.stderr}`).toBe(4);
      expect(res.stderr).toMatch(/not found/i);
      expect(res.stdout).toBe('');
    }
    expect((await run(['webhooks', 'list', '--json'], other.config)).json()).toEqual([]);
    // Untouched for its owner.
    expect((await run(['webhooks', 'show', id, '--json'])).json()).toMatchObject({ id, enabled: true });
  });

  it('rm deletes it with its attempt log', async () => {
    const removed = await run(['webhooks', 'rm', id]);
    expect(removed.code, removed.stderr).toBe(0);
    expect(removed.stderr).toContain(`Deleted ${id}.`);
    const gone = await run(['webhooks', 'show', id]);
    expect(gone.code).toBe(4);
    const attempts = await run(['webhooks', 'attempts', id]);
    expect(attempts.code).toBe(4);
    const empty = await run(['webhooks', 'list']);
    expect(empty.code).toBe(0);
    expect(empty.stderr).toContain('No webhook endpoints.');
  });
});
