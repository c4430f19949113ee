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

async function launch(profile: string): Promise<{ context: BrowserContext; worker: Worker; id: string }> {
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: process.env['KG_CHROMIUM']!,
    headless: true,
    args: [`--disable-extensions-except=${EXTENSION}`, `--load-extension=${EXTENSION}`],
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

test.beforeAll(async () => {
  pages = createServer((req, res) => {
    res.setHeader('content-type', 'text/html; charset=utf-8');
    res.end(req.url === '/linked' ? LINKED : ARTICLE);
  });
  await new Promise<void>((r) => pages.listen(0, '127.0.0.1', () => r()));
  pagesUrl = `http://127.0.0.1:${(pages.address() as { port: number }).port}`;
});
test.afterAll(() => new Promise<void>((r) => pages.close(() => r())));

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
  await expect(popup.getByRole('link', { name: 'Open its node' })).toBeVisible({ timeout: 60_000 });
  const page = (await captures()).find((c) => c.url === `${pagesUrl}/article`)!;
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
  expect(after.find((c) => c.why === 'offline')).toMatchObject({
    url: `${pagesUrl}/article`,
    source: 'browser-extension',
  });
  await context.close();
});
