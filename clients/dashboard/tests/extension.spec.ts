import { expect, test } from '@playwright/test';
import type { browser } from 'wxt/browser';
import { apiSession } from './support/fixtures';
import {
  badgeOf,
  BASE,
  type Capture,
  entryOf,
  freshProfile,
  launch,
  openPopup,
  setUp,
  tabOf,
  tell,
  usePageServers,
} from './support/extension';

/** The extension API, as the service worker sees it (these tests evaluate code there). */
declare const chrome: typeof browser;

/**
 * The browser extension saving pages, selections and links against the embedded server the
 * browser suite starts (helpers and page servers: support/extension.ts).
 */
const site = usePageServers();

test('the extension saves a page, a selection and a link with every field; the badge says so; the offline queue survives a restart', async () => {
  const kg = await apiSession('extension@example.com');
  const captures = async () => (await kg.call<{ data: Capture[] }>('GET', '/captures?per_page=100')).data;
  const { key } = await kg.call<{ key: string }>('POST', '/auth/api-keys', { name: 'browser extension' });
  const profile = freshProfile();
  let { context, worker, id } = await launch(profile);

  // Set-up: the options page checks the address and the key against the server.
  const options = await context.newPage();
  await options.goto(`chrome-extension://${id}/options.html`);
  await options.getByLabel('Server address').fill('not a url at all');
  await options.getByLabel('API key').fill(key);
  await options.getByRole('button', { name: 'Save and test' }).click();
  await expect(options.locator('#result')).toHaveText('Not saved: That is not a web address');
  // An API key must not cross a network in clear: plain http only for loopback.
  await options.getByLabel('Server address').fill('http://kg.example.com');
  await options.getByRole('button', { name: 'Save and test' }).click();
  await expect(options.locator('#result')).toContainText('must be https://');
  await options.getByLabel('Server address').fill(BASE());
  await options.getByLabel('API key').fill('key_wrong');
  await options.getByRole('button', { name: 'Save and test' }).click();
  await expect(options.locator('#result')).toContainText('An API key looks like');
  await options.getByLabel('API key').fill(key);
  await options.getByRole('button', { name: 'Save and test' }).click();
  await expect(options.locator('#result')).toContainText('Connected to');
  await expect(options.locator('#result')).toContainText('extension@example.com');
  // The key is kept in storage.local only, never synced.
  expect(await worker.evaluate(async () => JSON.stringify(await chrome.storage.sync.get(null)))).toBe('{}');

  // The page, with a selection, from the popup (as the toolbar button opens it).
  const article = await context.newPage();
  await article.goto(`${site.pages}/article`);
  await article.evaluate(() => getSelection()!.selectAllChildren(document.getElementById('quote')!));
  const articleTab = await tabOf(worker, `${site.pages}/article`);
  expect(await badgeOf(worker, articleTab)).toBe('');
  await article.bringToFront();
  await worker.evaluate(() => chrome.windows.create({ url: 'popup.html', type: 'popup' }));
  const popup = await context.waitForEvent('page', (p) => p.url().endsWith('/popup.html'));
  await expect(popup.getByRole('status').first()).toHaveText('Not captured yet.');
  await popup.getByLabel('Why it matters (optional)').fill('for the study guide');
  await popup.getByRole('button', { name: 'Save this page' }).click();
  await expect(popup.locator('#result')).toContainText('Saved');
  // The popup does not poll: the background follows the capture through GET /events and the
  // popup redraws from what it stores, so the node's link appears when the event arrives.
  const saved = (await captures()).find((c) => c.url === `${site.pages}/article`)!;
  const entry = entryOf(popup, saved.id);
  await expect(entry.getByRole('link', { name: 'Open its node' })).toBeVisible({ timeout: 60_000 });
  await expect(entry).toContainText('Interleaved practice — processed');
  await expect(entry.getByRole('link', { name: 'Open the capture' })).toHaveAttribute(
    'href',
    `${BASE()}/captures/${saved.id}`,
  );
  const page = (await captures()).find((c) => c.url === `${site.pages}/article`)!;
  await expect(entry.getByRole('link', { name: 'Open its node' })).toHaveAttribute(
    'href',
    `${BASE()}/nodes/${page.node_ids[0]}`,
  );
  await expect(popup.locator('#followed li')).toHaveCount(1);
  // The page's own line follows as well.
  await expect(popup.locator('#state')).toContainText('(processed)');
  expect(page).toMatchObject({
    title: 'Interleaved practice',
    content_type: 'article',
    source: 'browser-extension',
    why: 'for the study guide',
    selected_text: 'Mixing problem types during practice improves later test scores.',
    status: 'processed',
  });
  // Its HTML as the person saw it reached the pipeline: the node holds the page's text.
  const node = await kg.call<{ body_markdown: string }>('GET', `/nodes/${page.node_ids[0]}`);
  expect(node.body_markdown).toContain('Blocked practice feels easier');
  await expect.poll(() => badgeOf(worker, articleTab)).toBe('✓');
  await popup.close();
  // Reopened later, the popup reads the capture again (GET /captures/:id) and shows the same.
  await article.bringToFront();
  const again = await openPopup(context, worker);
  await expect(entryOf(again, page.id).getByRole('link', { name: 'Open its node' })).toHaveAttribute(
    'href',
    `${BASE()}/nodes/${page.node_ids[0]}`,
  );
  await again.close();

  // "Save selection" and "Save link" (what the context menus send).
  const selection = await tell<{ kind: string }>(options, {
    type: 'save-selection',
    tabId: articleTab,
    text: 'Blocked practice feels easier but transfers less.',
  });
  expect(selection.kind).toBe('saved');
  const link = await tell<{ kind: string }>(options, {
    type: 'save-link',
    tabId: articleTab,
    url: `${site.pages}/linked`,
    text: 'The follow-up study',
  });
  expect(link.kind).toBe('saved');
  const refusedLink = await tell<{ kind: string; error: string }>(options, {
    type: 'save-link',
    tabId: articleTab,
    url: 'javascript:alert(1)',
  });
  expect(refusedLink).toMatchObject({ kind: 'refused' });
  const all = await captures();
  expect(all.find((c) => c.selected_text === 'Blocked practice feels easier but transfers less.')).toMatchObject({
    url: `${site.pages}/article`,
    source: 'browser-extension',
  });
  expect(all.find((c) => c.url === `${site.pages}/linked`)).toMatchObject({
    title: 'The follow-up study',
    content_type: 'article',
    source: 'browser-extension',
  });
  // Saved without the popup (the context menus), followed all the same: the popup lists them,
  // each once, and links each to its node once processed.
  await article.bringToFront();
  const recent = await openPopup(context, worker);
  for (const made of [
    all.find((c) => c.selected_text === 'Blocked practice feels easier but transfers less.')!,
    all.find((c) => c.url === `${site.pages}/linked`)!,
  ]) {
    const item = entryOf(recent, made.id);
    await expect(item.getByRole('link', { name: 'Open its node' })).toBeVisible({ timeout: 60_000 });
    const processed = await kg.call<Capture>('GET', `/captures/${made.id}`);
    await expect(item.getByRole('link', { name: 'Open its node' })).toHaveAttribute(
      'href',
      `${BASE()}/nodes/${processed.node_ids[0]}`,
    );
  }
  await expect(recent.locator('#followed li')).toHaveCount(3);
  await recent.close();

  // Offline: the server cannot be reached; the capture is queued, counted on the badge...
  await options.bringToFront();
  const settings = await worker.evaluate(async () => (await chrome.storage.local.get('settings'))['settings']);
  await worker.evaluate(
    async (s) => chrome.storage.local.set({ settings: { ...(s as object), server: 'http://127.0.0.1:9' } }),
    settings,
  );
  const offline = await tell<{ kind: string; waiting: number }>(options, {
    type: 'save-page',
    tabId: articleTab,
    why: 'offline',
  });
  expect(offline).toMatchObject({ kind: 'queued', waiting: 1 });
  expect(await badgeOf(worker, articleTab)).toBe('1');
  const before = (await captures()).length;

  // ...survives closing the browser...
  await context.close();
  ({ context, worker, id } = await launch(profile));
  const reopened = await context.newPage();
  await reopened.goto(`chrome-extension://${id}/options.html`);
  await expect(reopened.locator('#waiting')).toHaveText('1 capture waiting.');

  // ...and is sent once the server is back.
  await worker.evaluate(async (s) => chrome.storage.local.set({ settings: s }), settings);
  await reopened.getByRole('button', { name: 'Send now' }).click();
  // (The 30-second alarm may have sent it first: either way nothing waits and it was made once.)
  await expect(reopened.locator('#result')).toHaveText(/^[01] sent; 0 still waiting\.$/);
  await expect(reopened.locator('#waiting')).toHaveText('Nothing.');
  const after = await captures();
  expect(after.length).toBe(before + 1);
  const sentLater = after.find((c) => c.why === 'offline')!;
  expect(sentLater).toMatchObject({ url: `${site.pages}/article`, source: 'browser-extension' });
  // Sent later, and followed from then on like any save: the popup links to its node.
  const popupAfter = await openPopup(context, worker);
  await expect(entryOf(popupAfter, sentLater.id).getByRole('link', { name: 'Open its node' })).toBeVisible({
    timeout: 60_000,
  });
  await context.close();
});

test('"Save and test" clicked while the options page still reads its settings saves and tests, never reloads the page', async () => {
  const kg = await apiSession('extension-early@example.com');
  const { key } = await kg.call<{ key: string }>('POST', '/auth/api-keys', { name: 'browser extension' });
  const { context, id } = await launch(freshProfile());
  // A busy browser: the options page's reads of storage take 3 s (a CI run once clicked
  // before they ended; the form then submitted itself and the page reloaded, empty).
  await context.addInitScript(() => {
    if (!location.pathname.endsWith('/options.html')) return;
    const local = chrome.storage.local;
    const get = local.get.bind(local) as (keys?: unknown) => Promise<Record<string, unknown>>;
    Object.defineProperty(local, 'get', {
      value: (keys?: unknown) => new Promise((r) => setTimeout(r, 3000)).then(() => get(keys)),
    });
  });
  const options = await context.newPage();
  await options.goto(`chrome-extension://${id}/options.html`, { waitUntil: 'domcontentloaded' });
  await options.getByLabel('Server address').fill(BASE());
  await options.getByLabel('API key').fill(key);
  await options.getByRole('button', { name: 'Save and test' }).click();
  await expect(options.locator('#result')).toContainText('Connected to');
  await expect(options.locator('#result')).toContainText('extension-early@example.com');
  expect(new URL(options.url()).search).toBe('');
  await context.close();
});

test('a failed capture shows why with a retry; a web page cannot reach the extension', async () => {
  const kg = await apiSession('extension-failure@example.com');
  const captures = async () => (await kg.call<{ data: Capture[] }>('GET', '/captures?per_page=100')).data;
  const { key } = await kg.call<{ key: string }>('POST', '/auth/api-keys', { name: 'browser extension' });
  const { context, worker, id } = await launch(freshProfile());
  const options = await context.newPage();
  await setUp(options, id, key);
  const article = await context.newPage();
  await article.goto(`${site.pages}/article`);
  const articleTab = await tabOf(worker, `${site.pages}/article`);

  // A web page has no way to the extension's background: no runtime to message it with (no
  // externally_connectable), and the background answers only the extension's own pages.
  const attempt = await article.evaluate(async (extensionId) => {
    const runtime = (globalThis as { chrome?: { runtime?: { sendMessage?: unknown } } }).chrome?.runtime;
    if (typeof runtime?.sendMessage !== 'function') return 'no runtime';
    try {
      await (runtime.sendMessage as (id: string, m: unknown) => Promise<unknown>)(extensionId, {
        type: 'save-page',
        tabId: 1,
      });
      return 'sent';
    } catch (err) {
      return String(err);
    }
  }, id);
  expect(attempt).not.toBe('sent');
  // Nor can it forge a live event: the popup draws only what the background stored from the stream.
  await article.evaluate(() =>
    window.postMessage({ type: 'capture.changed', data: { status: 'processed', node_ids: ['node_forged'] } }, '*'),
  );
  expect(await captures()).toEqual([]);

  // A link that leads nowhere: its capture fails; the popup says why and offers Retry.
  const missing = await tell<{ kind: string; capture: Capture }>(options, {
    type: 'save-link',
    tabId: articleTab,
    url: `${site.pages}/missing`,
    text: 'A page that is gone',
  });
  expect(missing.kind).toBe('saved');
  await article.bringToFront();
  const popup = await openPopup(context, worker);
  const entry = entryOf(popup, missing.capture.id);
  await expect(entry).toContainText('A page that is gone — failed', { timeout: 60_000 });
  await expect(entry).toContainText('Failed: fetch: HTTP 404 from 127.0.0.1');
  await expect(entry.getByRole('link', { name: 'Open its node' })).toHaveCount(0);
  const fetched = site.served.get('/missing') ?? 0;
  await entry.getByRole('button', { name: 'Retry' }).click();
  // Retried on the server (a new run fetches it again), and failed again, live.
  await expect.poll(() => site.served.get('/missing') ?? 0, { timeout: 60_000 }).toBeGreaterThan(fetched);
  await expect(entry).toContainText('Failed: fetch: HTTP 404 from 127.0.0.1', { timeout: 60_000 });
  const activity = await kg.call<{ data: { kind: string }[] }>('GET', `/captures/${missing.capture.id}/activity`);
  expect(activity.data.filter((a) => a.kind === 'failed')).toHaveLength(2);
  expect(activity.data.map((a) => a.kind)).toContain('retried');
  await expect(popup.locator('#followed li')).toHaveCount(1);
  await context.close();
});
