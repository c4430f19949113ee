import { existsSync, mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, expect, test, type BrowserContext, type Page, type Worker } from '@playwright/test';
import type { browser } from 'wxt/browser';

/** The extension API, as the service worker sees it (these helpers and the tests evaluate code there). */
declare const chrome: typeof browser;

/**
 * What the extension's browser tests share (extension.spec.ts, extension-badge.spec.ts): the
 * browser extension (clients/extension), unpacked (the tests' build: test-browser.sh builds it with the loopback origin
 * granted, since a headless browser cannot answer the permission prompt) in Debian's Chromium,
 * against the embedded server the browser suite starts, saving pages a local server serves.
 */
export const EXTENSION = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../../extension/.output-test/chrome-mv3',
);
/** The same, built as if the person had also allowed the optional `tabs` permission in the options. */
export const EXTENSION_TABS = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../../extension/.output-test-tabs/chrome-mv3',
);
export const BASE = () => process.env['KG_BASE_URL']!;

export type Capture = {
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

export const ARTICLE = `<!doctype html><html><head><title>Interleaved practice</title>
<meta property="og:type" content="article"></head><body>
<h1>Interleaved practice</h1>
<p id="quote">Mixing problem types during practice improves later test scores.</p>
<p>Blocked practice feels easier but transfers less. <a id="link" href="/linked">The follow-up study</a>.</p>
</body></html>`;
export const LINKED = `<!doctype html><html><head><title>Follow-up study</title></head><body>
<p>A replication with older students found the same benefit of interleaving.</p></body></html>`;

/** A fresh browser profile folder. */
export const freshProfile = () => mkdtempSync(path.join(tmpdir(), 'kg-extension-'));

export async function launch(
  profile: string,
  extension = EXTENSION,
): Promise<{ context: BrowserContext; worker: Worker; id: string }> {
  // Chromium waits for ever for the service worker of an extension it could not load.
  if (!existsSync(path.join(extension, 'manifest.json')))
    throw new Error(`no extension built at ${extension} (scripts/dashboard/test-browser.sh builds it)`);
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: process.env['KG_CHROMIUM']!,
    headless: true,
    args: [`--disable-extensions-except=${extension}`, `--load-extension=${extension}`],
  });
  const worker = context.serviceWorkers()[0] ?? (await context.waitForEvent('serviceworker'));
  return { context, worker, id: new URL(worker.url()).host };
}

/** Sends, from one of the extension's pages, what the popup and the context menus send to the background. */
export const tell = <T>(page: Page, message: Record<string, unknown>) =>
  page.evaluate((m) => chrome.runtime.sendMessage(m), message) as Promise<T>;

export const tabOf = (worker: Worker, url: string) =>
  worker.evaluate(async (u) => (await chrome.tabs.query({ url: u }))[0]!.id!, url);

export const badgeOf = (worker: Worker, tabId: number) =>
  worker.evaluate((id) => chrome.action.getBadgeText({ tabId: id }), tabId);

/** Opens the popup as the toolbar button does, for the active tab of the last focused window. */
export async function openPopup(context: BrowserContext, worker: Worker): Promise<Page> {
  const opened = context.waitForEvent('page', (p) => p.url().endsWith('/popup.html'));
  await worker.evaluate(() => chrome.windows.create({ url: 'popup.html', type: 'popup' }));
  return opened;
}

/** The popup's entry of one capture in its list of recent captures. */
export const entryOf = (popup: Page, captureId: string) => popup.locator(`#followed li[data-capture="${captureId}"]`);

/** Saves the API key in the options page and checks that the server accepts it. */
export async function setUp(options: Page, id: string, key: string) {
  await options.goto(`chrome-extension://${id}/options.html`);
  await options.getByLabel('Server address').fill(BASE());
  await options.getByLabel('API key').fill(key);
  await options.getByRole('button', { name: 'Save and test' }).click();
  await expect(options.locator('#result')).toContainText('Connected to');
}

/** The test's page servers: their origins and the requests they answered. */
export interface Site {
  /** The pages the tests save (127.0.0.1, granted to the extension). */
  pages: string;
  /**
   * Pages on another origin (127.0.0.2: a match pattern ignores the port, so 127.0.0.1 is
   * granted on every port), one the extension has no host permission for.
   */
  others: string;
  /** Requests the page server answered, by path. */
  served: Map<string, number>;
}

/** Starts the page servers before the file's tests and stops them after. */
export function usePageServers(): Site {
  const site: Site = { pages: '', others: '', served: new Map() };
  let pages: Server;
  let others: Server;
  test.beforeAll(async () => {
    pages = createServer((req, res) => {
      site.served.set(req.url ?? '', (site.served.get(req.url ?? '') ?? 0) + 1);
      res.setHeader('content-type', 'text/html; charset=utf-8');
      // A link that leads nowhere: its capture fails.
      if (req.url === '/missing') res.statusCode = 404;
      res.end(req.url === '/linked' ? LINKED : req.url === '/missing' ? 'Not found' : ARTICLE);
    });
    await new Promise<void>((r) => pages.listen(0, '127.0.0.1', () => r()));
    site.pages = `http://127.0.0.1:${(pages.address() as { port: number }).port}`;
    others = createServer((req, res) => {
      res.setHeader('content-type', 'text/html; charset=utf-8');
      res.end(
        `<!doctype html><html><head><title>Elsewhere ${req.url}</title></head><body><p>Spacing effects.</p></body></html>`,
      );
    });
    await new Promise<void>((r) => others.listen(0, '127.0.0.2', () => r()));
    site.others = `http://127.0.0.2:${(others.address() as { port: number }).port}`;
  });
  test.afterAll(async () => {
    await new Promise<void>((r) => pages.close(() => r()));
    await new Promise<void>((r) => others.close(() => r()));
  });
  return site;
}

/**
 * Records, in the extension's service worker, the address of every GET /captures/check it
 * sends (the API client calls the global fetch).
 */
export async function recordChecks(worker: Worker): Promise<() => Promise<string[]>> {
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
export async function openTab(
  context: BrowserContext,
  worker: Worker,
  url: string,
): Promise<{ page: Page; tabId: number }> {
  const ids = () => worker.evaluate(async () => (await chrome.tabs.query({})).map((t) => t.id!));
  const before = new Set(await ids());
  const page = await context.newPage();
  await page.goto(url);
  const tabId = (await ids()).find((t) => !before.has(t))!;
  return { page, tabId };
}

export const settled = () => new Promise((r) => setTimeout(r, 1500));

/** The toolbar button's title for a tab. */
export const titleOf = (worker: Worker, tabId: number) =>
  worker.evaluate((id) => chrome.action.getTitle({ tabId: id }), tabId);

/** A tab's address as the extension sees it (null without `tabs` or a host permission). */
export const urlOfTab = (worker: Worker, tabId: number) =>
  worker.evaluate(async (id) => (await chrome.tabs.get(id)).url ?? null, tabId);
