import { createHmac } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { BASE_URL, expect, expectAccessible, nav, screenshot, signIn, test } from './support/fixtures';

interface Received {
  headers: Record<string, string>;
  body: string;
}

/** A webhook receiver on loopback (the test server allow-lists 127.0.0.1): records, answers `status`. */
function receiver() {
  const got: Received[] = [];
  let status = 204;
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      got.push({ headers: req.headers as Record<string, string>, body });
      res.writeHead(status).end();
    });
  });
  return {
    got,
    answer: (s: number) => (status = s),
    listen: () => new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r())),
    url: () => `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/kg`,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** Standard Webhooks: base64 HMAC-SHA256 of `id.timestamp.body` under the secret's bytes. */
function signatureOf(secret: string, r: Received): string {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const signed = `${r.headers['webhook-id']}.${r.headers['webhook-timestamp']}.${r.body}`;
  return `v1,${createHmac('sha256', key).update(signed).digest('base64')}`;
}

test('Settings › Webhooks: a private URL refused; create (secret shown once, copy), test event in the attempt log, pause (a test event waits), rotate, re-enable after a 410, delete', async ({
  page,
  context,
}) => {
  const hook = receiver();
  await hook.listen();
  try {
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: BASE_URL() });
    await signIn(page, 'webhooks@example.com');
    await nav(page, 'Settings › Webhooks').click();
    await expect(page.getByRole('heading', { name: 'Settings › Webhooks' })).toBeVisible();
    await expect(page.getByText('No webhook endpoints yet.')).toBeVisible();
    await expectAccessible(page);

    // A private address is refused with the server's reason, and no secret appears.
    await page.getByLabel('Endpoint URL').fill('http://10.0.0.1/hook');
    await page.getByRole('checkbox', { name: /node\.created/ }).check();
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    await expect(page.getByRole('alert')).toContainText('webhooks go to public addresses only');
    await expect(page.getByTestId('webhook-secret')).toHaveCount(0);
    await expectAccessible(page);

    // Create: URL, two event types, a description; the secret is shown once with a copy button.
    await page.getByLabel('Endpoint URL').fill(hook.url());
    await page.getByRole('checkbox', { name: /capture\.processed/ }).check();
    await page.getByLabel('Description (optional)').fill('browser test receiver');
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    const secret = (await page.getByTestId('webhook-secret').textContent())!.trim();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]+={0,2}$/);
    await expect(page.getByText('it is shown only once')).toBeVisible();
    await page.getByRole('button', { name: 'Copy secret' }).click();
    await expect(page.getByRole('button', { name: 'Copied' })).toBeVisible();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);
    const card = page.getByRole('region', { name: hook.url() });
    await expect(card.getByTestId('webhook-state')).toHaveText('enabled');
    await expect(card).toContainText('capture.processed, node.created');
    await expect(card).toContainText('browser test receiver');
    await expect(card).toContainText(`${secret.slice(0, 12)}…`);
    await expectAccessible(page);
    await screenshot(page, 'webhooks');

    // Shown once: gone after "Done" and after a reload.
    await page.getByRole('button', { name: 'Done' }).click();
    await expect(page.getByTestId('webhook-secret')).toHaveCount(0);
    await page.reload();
    await expect(card).toBeVisible();
    expect(await page.content()).not.toContain(secret);

    // A test event: delivered, signed with that secret, and its attempt in the log.
    await card.getByRole('button', { name: 'Send test event' }).click();
    const log = card.getByTestId('webhook-attempts');
    await expect(log.getByRole('row').nth(1)).toContainText('webhook.test');
    await expect(log.getByRole('row').nth(1)).toContainText('succeeded');
    await expect(log.getByRole('row').nth(1)).toContainText('204');
    expect(hook.got).toHaveLength(1);
    const delivery = hook.got[0]!;
    expect(JSON.parse(delivery.body)).toMatchObject({ type: 'webhook.test' });
    expect(delivery.headers['webhook-signature']!.split(' ')).toEqual([signatureOf(secret, delivery)]);
    await expectAccessible(page);
    await screenshot(page, 'webhooks-attempts');

    // Pause: a test event waits (queued) and arrives once resumed.
    await card.getByRole('button', { name: 'Pause' }).click();
    await expect(card.getByTestId('webhook-state')).toHaveText('paused');
    await card.getByRole('button', { name: 'Send test event' }).click();
    await expect(card.getByText('The test event is queued')).toBeVisible();
    await expect(card).toContainText(/Pending deliveries\s*1/);
    expect(hook.got).toHaveLength(1);
    await card.getByRole('button', { name: 'Resume' }).click();
    await expect(card.getByTestId('webhook-state')).toHaveText('enabled');
    await expect.poll(() => hook.got.length).toBe(2);

    // Rotate (confirmed): a new secret, shown once; the card shows its prefix and the overlap.
    await card.getByRole('button', { name: 'Rotate secret' }).click();
    const rotate = page.getByRole('dialog', { name: 'Rotate this endpoint’s secret?' });
    await expect(rotate).toBeVisible();
    await expectAccessible(page);
    await rotate.getByRole('button', { name: 'Rotate secret' }).click();
    const fresh = (await page.getByTestId('webhook-secret').textContent())!.trim();
    expect(fresh).toMatch(/^whsec_/);
    expect(fresh).not.toBe(secret);
    await expect(card).toContainText(`${fresh.slice(0, 12)}…`);
    await expect(card).toContainText('the previous one also signs until');
    await page.getByRole('button', { name: 'Done' }).click();

    // The receiver answers 410 Gone: the server disables the endpoint, the card says so and offers to re-enable it.
    hook.answer(410);
    await card.getByRole('button', { name: 'Send test event' }).click();
    await expect(log.getByRole('row').nth(1)).toContainText('failed');
    await expect(log.getByRole('row').nth(1)).toContainText('410');
    const notice = card.getByRole('alert');
    await expect(notice).toContainText('The server disabled this endpoint');
    await expect(notice).toContainText('410 Gone');
    await expect(card.getByTestId('webhook-state')).toHaveText('disabled');
    await expectAccessible(page);
    await screenshot(page, 'webhooks-disabled');
    const gone = hook.got.at(-1)!;
    // Both secrets sign during the rotation's overlap.
    expect(gone.headers['webhook-signature']!.split(' ')).toEqual([
      signatureOf(fresh, gone),
      signatureOf(secret, gone),
    ]);
    hook.answer(204);
    await notice.getByRole('button', { name: 'Re-enable' }).click();
    await expect(card.getByTestId('webhook-state')).toHaveText('enabled');
    await expect(card.getByRole('alert')).toHaveCount(0);

    // Delete, confirmed.
    await card.getByRole('button', { name: 'Delete' }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete this endpoint?' });
    await confirm.getByRole('button', { name: 'Delete endpoint' }).click();
    await expect(card).toHaveCount(0);
    await expect(page.getByText('No webhook endpoints yet.')).toBeVisible();
  } finally {
    await hook.close();
  }
});
