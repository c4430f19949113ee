import { mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, expect, test, type BrowserContext, type Page, type Worker } from '@playwright/test';
import type { browser } from 'wxt/browser';
import { apiSession } from './support/fixtures';

/** The extension API, as the service worker sees it (these tests evaluate code there). */
declare const chrome: typeof browser;

/**
 * The browser extension (clients/extension), unpacked (the tests' build: test-browser.sh builds it with the loopback origin
 * granted, since a headless browser cannot answer the permission prompt) in Debian's Chromium,
 * against the embedded server the browser suite starts, saving pages a local server serves.
 */
const EXTENSION = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../extension/.output-test/chrome-mv3');
/** The same, built as if the person had also allowed the optional `tabs` permission in the options. */
const EXTENSION_TABS = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../extension/.output-test-tabs/chrome-mv3',
);
const BASE = () => process.env['KG_BASE_URL']!;

type Capture = {
  id: string;
  title: string;
  url: string | null;
  content_type: string;
  source: string;
  why: string | null;
  selected_text: string | null;
  status: string;
  node_ids: string[];
};

const ARTICLE = `<!doctype html><html><head><title>Interleaved practice</title>
<meta property="og:type" content="article"></head><body>
<h1>Interleaved practice</h1>
<p id="quote">Mixing problem types during practice improves later test scores.</p>
<p>Blocked practice feels easier but transfers less. <a id="link" href="/linked">The follow-up study</a>.</p>
</body></html>`;
const LINKED = `<!doctype html><html><head><title>Follow-up study</title></head><body>
<p>A replication with older students found the same benefit of interleaving.</p></body></html>`;

let pages: Server;
let pagesUrl = '';
/**
 * Pages on another origin (127.0.0.2: a match pattern ignores the port, so 127.0.0.1 is
 * granted on every port), one the extension has no host permission for.
 */
let others: Server;
let othersUrl = '';
/** Requests the page server answered, by path. */
const served = new Map<string, number>();

async function launch(
  profile: string,
  extension = EXTENSION,
): Promise<{ context: BrowserContext; worker: Worker; id: string }> {
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: process.env['KG_CHROMIUM']!,
    headless: true,
    args: [`--disable-extensions-except=${extension}`, `--load-extension=${extension}`],
  });
  const worker = context.serviceWorkers()[0] ?? (await context.waitForEvent('serviceworker'));
  return { context, worker, id: new URL(worker.url()).host };
}

/** Sends, from one of the extension's pages, what the popup and the context menus send to the background. */
const tell = <T>(page: Page, message: Record<string, unknown>) =>
  page.evaluate((m) => chrome.runtime.sendMessage(m), message) as Promise<T>;

const tabOf = (worker: Worker, url: string) =>
  worker.evaluate(async (u) => (await chrome.tabs.query({ url: u }))[0]!.id!, url);

const badgeOf = (worker: Worker, tabId: number) =>
  worker.evaluate((id) => chrome.action.getBadgeText({ tabId: id }), tabId);

/** Opens the popup as the toolbar button does, for the active tab of the last focused window. */
async function openPopup(context: BrowserContext, worker: Worker): Promise<Page> {
  const opened = context.waitForEvent('page', (p) => p.url().endsWith('/popup.html'));
  await worker.evaluate(() => chrome.windows.create({ url: 'popup.html', type: 'popup' }));
  return opened;
}

/** The popup's entry of one capture in its list of recent captures. */
const entryOf = (popup: Page, captureId: string) => popup.locator(`#followed li[data-capture="${captureId}"]`);

/** Saves the API key in the options page and checks that the server accepts it. */
async function setUp(options: Page, id: string, key: string) {
  await options.goto(`chrome-extension://${id}/options.html`);
  await options.getByLabel('Server address').fill(BASE());
  await options.getByLabel('API key').fill(key);
  await options.getByRole('button', { name: 'Save and test' }).click();
  await expect(options.locator('#result')).toContainText('Connected to');
}

test.beforeAll(async () => {
  pages = createServer((req, res) => {
    served.set(req.url ?? '', (served.get(req.url ?? '') ?? 0) + 1);
    res.setHeader('content-type', 'text/html; charset=utf-8');
    // A link that leads nowhere: its capture fails.
    if (req.url === '/missing') res.statusCode = 404;
    res.end(req.url === '/linked' ? LINKED : req.url === '/missing' ? 'Not found' : ARTICLE);
  });
  await new Promise<void>((r) => pages.listen(0, '127.0.0.1', () => r()));
  pagesUrl = `http://127.0.0.1:${(pages.address() as { port: number }).port}`;
  others = createServer((req, res) => {
    res.setHeader('content-type', 'text/html; charset=utf-8');
    res.end(
      `<!doctype html><html><head><title>Elsewhere ${req.url}</title></head><body><p>Spacing effects.</p></body></html>`,
    );
  });
  await new Promise<void>((r) => others.listen(0, '127.0.0.2', () => r()));
  othersUrl = `http://127.0.0.2:${(others.address() as { port: number }).port}`;
});
test.afterAll(async () => {
  await new Promise<void>((r) => pages.close(() => r()));
  await new Promise<void>((r) => others.close(() => r()));
});

/**
 * Records, in the extension's service worker, the address of every GET /captures/check it
 * sends (the API client calls the global fetch).
 */
async function recordChecks(worker: Worker): Promise<() => Promise<string[]>> {
  await worker.evaluate(() => {
    const g = globalThis as unknown as { fetch: typeof fetch; kgChecks?: string[] };
    if (g.kgChecks) return;
    const checks: string[] = (g.kgChecks = []);
    const original = g.fetch.bind(g);
    g.fetch = (input, init) => {
      const url = new URL(input instanceof Request ? input.url : String(input));
      if (url.pathname.endsWith('/captures/check')) checks.push(url.searchParams.get('url')!);
      return original(input, init);
    };
  });
  return () => worker.evaluate(() => [...(globalThis as unknown as { kgChecks: string[] }).kgChecks]);
}

/** Opens a page in a new tab and finds its tab id (without `tabs`, the extension cannot find it by its address). */
async function openTab(context: BrowserContext, worker: Worker, url: string): Promise<{ page: Page; tabId: number }> {
  const ids = () => worker.evaluate(async () => (await chrome.tabs.query({})).map((t) => t.id!));
  const before = new Set(await ids());
  const page = await context.newPage();
  await page.goto(url);
  const tabId = (await ids()).find((t) => !before.has(t))!;
  return { page, tabId };
}

const settled = () => new Promise((r) => setTimeout(r, 1500));

test('the extension saves a page, a selection and a link with every field; the badge says so; the offline queue survives a restart', async () => {
  const kg = await apiSession('extension@example.com');
  const captures = async () => (await kg.call<{ data: Capture[] }>('GET', '/captures?per_page=100')).data;
  const { key } = await kg.call<{ key: string }>('POST', '/auth/api-keys', { name: 'browser extension' });
  const profile = mkdtempSync(path.join(tmpdir(), 'kg-extension-'));
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
  await article.goto(`${pagesUrl}/article`);
  await article.evaluate(() => getSelection()!.selectAllChildren(document.getElementById('quote')!));
  const articleTab = await tabOf(worker, `${pagesUrl}/article`);
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
  const saved = (await captures()).find((c) => c.url === `${pagesUrl}/article`)!;
  const entry = entryOf(popup, saved.id);
  await expect(entry.getByRole('link', { name: 'Open its node' })).toBeVisible({ timeout: 60_000 });
  await expect(entry).toContainText('Interleaved practice — processed');
  await expect(entry.getByRole('link', { name: 'Open the capture' })).toHaveAttribute(
    'href',
    `${BASE()}/captures/${saved.id}`,
  );
  const page = (await captures()).find((c) => c.url === `${pagesUrl}/article`)!;
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
    url: `${pagesUrl}/linked`,
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
    url: `${pagesUrl}/article`,
    source: 'browser-extension',
  });
  expect(all.find((c) => c.url === `${pagesUrl}/linked`)).toMatchObject({
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
    all.find((c) => c.url === `${pagesUrl}/linked`)!,
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
  expect(sentLater).toMatchObject({ url: `${pagesUrl}/article`, source: 'browser-extension' });
  // Sent later, and followed from then on like any save: the popup links to its node.
  const popupAfter = await openPopup(context, worker);
  await expect(entryOf(popupAfter, sentLater.id).getByRole('link', { name: 'Open its node' })).toBeVisible({
    timeout: 60_000,
  });
  await context.close();
});

test('a failed capture shows why with a retry; a web page cannot reach the extension', async () => {
  const kg = await apiSession('extension-failure@example.com');
  const captures = async () => (await kg.call<{ data: Capture[] }>('GET', '/captures?per_page=100')).data;
  const { key } = await kg.call<{ key: string }>('POST', '/auth/api-keys', { name: 'browser extension' });
  const { context, worker, id } = await launch(mkdtempSync(path.join(tmpdir(), 'kg-extension-')));
  const options = await context.newPage();
  await setUp(options, id, key);
  const article = await context.newPage();
  await article.goto(`${pagesUrl}/article`);
  const articleTab = await tabOf(worker, `${pagesUrl}/article`);

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
    url: `${pagesUrl}/missing`,
    text: 'A page that is gone',
  });
  expect(missing.kind).toBe('saved');
  await article.bringToFront();
  const popup = await openPopup(context, worker);
  const entry = entryOf(popup, missing.capture.id);
  await expect(entry).toContainText('A page that is gone — failed', { timeout: 60_000 });
  await expect(entry).toContainText('Failed: fetch: HTTP 404 from 127.0.0.1');
  await expect(entry.getByRole('link', { name: 'Open its node' })).toHaveCount(0);
  const fetched = served.get('/missing') ?? 0;
  await entry.getByRole('button', { name: 'Retry' }).click();
  // Retried on the server (a new run fetches it again), and failed again, live.
  await expect.poll(() => served.get('/missing') ?? 0, { timeout: 60_000 }).toBeGreaterThan(fetched);
  await expect(entry).toContainText('Failed: fetch: HTTP 404 from 127.0.0.1', { timeout: 60_000 });
  const activity = await kg.call<{ data: { kind: string }[] }>('GET', `/captures/${missing.capture.id}/activity`);
  expect(activity.data.filter((a) => a.kind === 'failed')).toHaveLength(2);
  expect(activity.data.map((a) => a.kind)).toContain('retried');
  await expect(popup.locator('#followed li')).toHaveCount(1);
  await context.close();
});

const titleOf = (worker: Worker, tabId: number) =>
  worker.evaluate((id) => chrome.action.getTitle({ tabId: id }), tabId);

const urlOfTab = (worker: Worker, tabId: number) =>
  worker.evaluate(async (id) => (await chrome.tabs.get(id)).url ?? null, tabId);

test('without `tabs`, a page on a site the extension may not read gets no badge, no check and no error', async () => {
  const kg = await apiSession('extension-badge-hidden@example.com');
  const { key } = await kg.call<{ key: string }>('POST', '/auth/api-keys', { name: 'browser extension' });
  const { context, worker, id } = await launch(mkdtempSync(path.join(tmpdir(), 'kg-extension-')));
  const errors: string[] = [];
  context.on('weberror', (e) => errors.push(String(e.error())));
  const options = await context.newPage();
  await setUp(options, id, key);
  // The badge on every site is optional, and off until the person allows it.
  await expect(options.locator('#tabs-state')).toHaveText('Off.');
  await expect(options.getByRole('button', { name: 'Allow' })).toBeVisible();
  await expect(options.locator('#badge-access')).toContainText(
    'Show on the toolbar whether the page you are on is already saved.',
  );

  // The page was captured (elsewhere): the server would say so if asked.
  const elsewhere = `${othersUrl}/article`;
  await kg.call('POST', '/captures', { title: 'Elsewhere', url: elsewhere, content_type: 'article', source: 'api' });
  const known = await kg.call<{ url: string }>('GET', `/captures/check?url=${encodeURIComponent(elsewhere)}`);
  expect(known.url).toBe(elsewhere);
  const checks = await recordChecks(worker);
  const { page, tabId } = await openTab(context, worker, elsewhere);
  // The extension cannot see the address: nothing is asked, the badge says nothing.
  expect(await urlOfTab(worker, tabId)).toBeNull();
  await settled();
  expect(await badgeOf(worker, tabId)).toBe('');
  expect(await titleOf(worker, tabId)).toBe('Knowledge Graph');
  // A popup opened other than by the toolbar button (which grants activeTab, and with it the
  // address) says why, without an error and without asking.
  await page.bringToFront();
  const popup = await openPopup(context, worker);
  await expect(popup.locator('#state')).toHaveText(
    'The extension cannot see this page’s address: open it from the toolbar button on the page.',
  );
  await expect(popup.locator('#save')).toBeHidden();
  await popup.close();
  expect(await badgeOf(worker, tabId)).toBe('');
  // Navigating on that site changes nothing.
  await page.goto(`${othersUrl}/next`);
  await settled();
  expect(await badgeOf(worker, tabId)).toBe('');
  expect(await checks()).toEqual([]);
  expect(errors).toEqual([]);
  await context.close();
});

test('with `tabs`, the badge shows the state of a page on any site, checked as the save stores its address, once per storm, never for the browser’s own pages', async () => {
  const kg = await apiSession('extension-badge-tabs@example.com');
  const captures = async () => (await kg.call<{ data: Capture[] }>('GET', '/captures?per_page=100')).data;
  const { key } = await kg.call<{ key: string }>('POST', '/auth/api-keys', { name: 'browser extension' });
  const { context, worker, id } = await launch(mkdtempSync(path.join(tmpdir(), 'kg-extension-')), EXTENSION_TABS);
  const errors: string[] = [];
  context.on('weberror', (e) => errors.push(String(e.error())));
  const options = await context.newPage();
  await setUp(options, id, key);
  await expect(options.locator('#tabs-state')).toHaveText('On: every web page you switch to.');
  const checks = await recordChecks(worker);

  // A page captured (elsewhere) with a fragment, on an origin the extension has no host permission for.
  const saved = `${othersUrl}/saved#part-2`;
  await kg.call('POST', '/captures', { title: 'Saved elsewhere', url: saved, content_type: 'article', source: 'api' });
  const { page, tabId } = await openTab(context, worker, saved);
  await expect.poll(() => titleOf(worker, tabId)).toMatch(/^Knowledge Graph: captured/);
  expect(await badgeOf(worker, tabId)).toMatch(/^[…✓!]$/);
  expect(await checks()).toEqual([saved]);
  // The same page without the fragment is another address (a save keeps the fragment as sent).
  await page.goto(`${othersUrl}/saved`);
  await expect.poll(checks).toEqual([saved, `${othersUrl}/saved`]);
  await expect.poll(() => badgeOf(worker, tabId)).toBe('');

  // An address with a user name and password: the tab holds them, the save and the check do not.
  const bare = `${othersUrl}/private#notes`;
  const withCredentials = bare.replace('http://', 'http://reader:secret@');
  await page.goto(withCredentials);
  expect(await urlOfTab(worker, tabId)).toBe(withCredentials);
  await expect.poll(checks).toContain(bare);
  expect(await badgeOf(worker, tabId)).toBe('');
  const outcome = await tell<{ kind: string; capture: Capture }>(options, { type: 'save-page', tabId });
  expect(outcome).toMatchObject({ kind: 'saved', capture: { url: bare } });
  await expect.poll(() => titleOf(worker, tabId)).toMatch(/^Knowledge Graph: captured/);
  expect((await captures()).filter((c) => c.url?.includes('secret'))).toEqual([]);
  expect((await checks()).filter((u) => u.includes('secret'))).toEqual([]);
  // (Its processing is let finish, so that no event moves the badges below.)
  await expect
    .poll(async () => (await kg.call<Capture>('GET', `/captures/${outcome.capture.id}`)).status, { timeout: 60_000 })
    .toMatch(/^(processed|failed)$/);
  await expect
    .poll(() => titleOf(worker, tabId))
    .toMatch(/^Knowledge Graph: captured( and processed|, but processing failed)$/);

  // An app's route changes, 30 in a row: one check, of where it ends.
  let before = (await checks()).length;
  await page.evaluate(() => {
    for (let i = 0; i < 30; i++) history.pushState({}, '', `/route/${i}`);
  });
  await expect.poll(async () => (await checks()).slice(before)).toEqual([`${othersUrl}/route/29`]);
  await settled();
  expect((await checks()).slice(before)).toEqual([`${othersUrl}/route/29`]);

  // Switching back and forth between two tabs checked a moment ago asks nothing again.
  const second = await openTab(context, worker, `${othersUrl}/second`);
  await expect.poll(checks).toContain(`${othersUrl}/second`);
  await settled();
  before = (await checks()).length;
  for (let i = 0; i < 10; i++) await (i % 2 ? second.page : page).bringToFront();
  await settled();
  expect((await checks()).slice(before)).toEqual([]);

  // The popup's question is one GET /captures/check (the badge is set from the same answer).
  await page.bringToFront();
  before = (await checks()).length;
  const popup = await openPopup(context, worker);
  await expect(popup.locator('#state')).toHaveText('Not captured yet.');
  await settled();
  expect((await checks()).slice(before)).toEqual([`${othersUrl}/route/29`]);
  await popup.close();

  // The browser's own pages are never asked about, and show nothing.
  before = (await checks()).length;
  await page.goto('about:blank');
  const internal = await openTab(context, worker, 'chrome://version/');
  await settled();
  expect(await badgeOf(worker, tabId)).toBe('');
  expect(await badgeOf(worker, internal.tabId)).toBe('');
  expect((await checks()).slice(before)).toEqual([]);
  expect(errors).toEqual([]);
  await context.close();
});
