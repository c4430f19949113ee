import { browser, type Browser } from 'wxt/browser';
import { defineBackground } from 'wxt/utils/define-background';
import { pageAddress } from '../src/address';
import { apiClient, type Api } from '../src/api';
import { openEventStream } from '../src/event-stream';
import type { Followed } from '../src/followed';
import { Follower } from '../src/follower';
import { WATCH_PORT, fromOwnPage, type Message, type Status } from '../src/messages';
import { LIMITS, capturable, linkCapture, pageCapture, readPage, selectionCapture, type PageRead } from '../src/page';
import { CaptureQueue, type SaveOutcome } from '../src/queue';
import { loadSettings } from '../src/settings';
import { TabBadges } from '../src/tab-badges';

const storage = browser.storage.local;
const queue = new CaptureQueue(storage);
/**
 * The captures this browser made, followed live (README.md, "Live status"):
 * one stream in the background, for the saves the popup never sees (menus, shortcut, the
 * queue) and for the badge. While it follows, every byte of the stream (an event, the
 * server's 15-s comment) calls an extension API, which keeps the service worker from being
 * stopped as idle (Chrome 110+); when the browser stops it anyway, the 30-s alarm and the
 * popup start it again, and the stream re-reads what it follows on connecting.
 */
const follower = new Follower({
  storage,
  settings: () => loadSettings(storage),
  api: (settings) => apiClient(settings),
  open: (settings, handlers) => openEventStream(settings, handlers),
  onChange: (changed) => badgesOf(changed),
  keepAwake: () => void browser.runtime.getPlatformInfo().catch(() => undefined),
});
const MENU = { page: 'save-page', selection: 'save-selection', link: 'save-link' } as const;

async function api(): Promise<Api | null> {
  const settings = await loadSettings(storage);
  return settings ? apiClient(settings) : null;
}

/** The page as the person sees it; only its address and title where scripts may not run (a PDF viewer, a store page). */
async function read(tab: Browser.tabs.Tab): Promise<PageRead> {
  const fallback: PageRead = { url: tab.url!, title: tab.title ?? '', selection: '', html: '', mime: '', ogType: '' };
  try {
    const [result] = await browser.scripting.executeScript({
      target: { tabId: tab.id! },
      func: readPage,
      args: [LIMITS],
    });
    return (result?.result as PageRead | undefined) ?? fallback;
  } catch {
    return fallback;
  }
}

/**
 * The toolbar badge of each tab (src/tab-badges.ts, src/badge.ts): what waits to be sent, else
 * the page's capture state from GET /captures/check. The tab's address is known with the
 * optional `tabs` permission, on the configured server's own origin, or once the person used
 * the toolbar button, a menu or the shortcut on the page (activeTab); otherwise the badge
 * says nothing (README.md, "The badge and your browsing").
 */
const badges = new TabBadges({
  tab: async (tabId) => {
    try {
      const tab = await browser.tabs.get(tabId);
      return { url: tab.url, active: tab.active };
    } catch {
      return null; // closed
    }
  },
  check: async (url) => (await api())?.check(url) ?? null,
  waiting: async () => (await queue.waiting()).length,
  show: async (tabId, shown) => {
    try {
      await browser.action.setBadgeBackgroundColor({ tabId, color: shown.color });
      await browser.action.setBadgeText({ tabId, text: shown.text });
      await browser.action.setTitle({ tabId, title: shown.title });
    } catch {
      // the tab was closed meanwhile
    }
  },
});

/** A followed capture changed (an event, a read): the badges of the tabs showing its address follow. */
async function badgesOf(changed: Followed[]): Promise<void> {
  const urls = new Set(changed.map((f) => f.url).filter((u): u is string => !!u));
  if (!urls.size) return;
  for (const tab of await browser.tabs.query({})) {
    const address = pageAddress(tab.url);
    if (tab.id !== undefined && address && urls.has(address)) badges.schedule(tab.id, 'changed');
  }
}

/** Every active tab's badge again (the `tabs` permission granted or withdrawn, the queue sent). */
async function activeBadges(): Promise<void> {
  for (const tab of await browser.tabs.query({ active: true }))
    if (tab.id !== undefined) badges.schedule(tab.id, 'changed');
}

async function save(
  tab: Browser.tabs.Tab | undefined,
  make: () => Promise<Parameters<CaptureQueue['save']>[1]>,
): Promise<SaveOutcome> {
  if (!tab?.id || !capturable(tab.url))
    return { kind: 'refused', error: 'Only web pages (http and https) can be saved' };
  const body = await make();
  // Saved (and so checked) without a user name or password in the address (src/address.ts).
  if (body.url) body.url = pageAddress(body.url) ?? body.url;
  const outcome = await queue.save(await api(), body);
  if (outcome.kind === 'saved') {
    await follower.track(outcome.capture);
    await badges.now(tab.id, tab.url);
  } else if (outcome.kind === 'queued') await badges.showWaiting(tab.id); // the server is out of reach
  return outcome;
}

const savePage = (tab: Browser.tabs.Tab | undefined, why?: string) =>
  save(tab, async () => pageCapture(await read(tab!), why));

const saveSelection = (tab: Browser.tabs.Tab | undefined, text: string) =>
  save(tab, async () => selectionCapture(tab!.url!, tab!.title ?? '', text));

async function saveLink(tab: Browser.tabs.Tab | undefined, url: string, text?: string): Promise<SaveOutcome> {
  if (!pageAddress(url)) return { kind: 'refused', error: 'Only web links (http and https) can be saved' };
  return save(tab, async () => linkCapture(url, text));
}

async function flush(): Promise<{ sent: number; waiting: number }> {
  const client = await api();
  const made = client ? await queue.flush(client) : [];
  // Sent at last: followed like a capture saved now.
  for (const capture of made) await follower.track(capture);
  const sent = made.length;
  if (sent) await activeBadges();
  return { sent, waiting: (await queue.waiting()).length };
}

/**
 * What the popup shows about its tab: one GET /captures/check, which the badge is set from
 * too. The address is there when the popup was opened from the toolbar button (activeTab);
 * `hidden` when the extension may not see it.
 */
async function status(tabId: number): Promise<Status> {
  const tab = await browser.tabs.get(tabId);
  const settings = await loadSettings(storage);
  const checked = await badges.now(tabId, tab.url);
  return {
    ready: settings !== null,
    server: settings?.server ?? null,
    captured: checked?.captured ?? null,
    checkError: checked?.error ?? null,
    waiting: (await queue.waiting()).length,
    refused: await queue.refused(),
    capturable: capturable(tab.url),
    hidden: tab.url === undefined,
  };
}

const ownPage = (sender: Browser.runtime.MessageSender | undefined) =>
  fromOwnPage(sender, { id: browser.runtime.id, origin: location.origin });

export default defineBackground(() => {
  browser.runtime.onInstalled.addListener(() => {
    void browser.contextMenus.removeAll().then(() => {
      browser.contextMenus.create({ id: MENU.page, title: 'Save page to Knowledge Graph', contexts: ['page'] });
      browser.contextMenus.create({
        id: MENU.selection,
        title: 'Save selection to Knowledge Graph',
        contexts: ['selection'],
      });
      browser.contextMenus.create({ id: MENU.link, title: 'Save link to Knowledge Graph', contexts: ['link'] });
    });
  });
  // What waits is sent every 30 s (the shortest period an alarm may have) and at start-up.
  void browser.alarms.create('flush', { periodInMinutes: 0.5 });
  browser.alarms.onAlarm.addListener((alarm) => void (alarm.name === 'flush' && flush()));
  browser.runtime.onStartup.addListener(() => void flush());
  // A worker started again (by the alarm, a message, the browser) follows what is still in flight.
  void follower.ensure();

  browser.contextMenus.onClicked.addListener((info, tab) => {
    if (info.menuItemId === MENU.page) void savePage(tab);
    else if (info.menuItemId === MENU.selection) void saveSelection(tab, info.selectionText ?? '');
    else if (info.menuItemId === MENU.link && info.linkUrl)
      void saveLink(tab, info.linkUrl, (info as { linkText?: string }).linkText);
  });
  browser.commands.onCommand.addListener((command, tab) => {
    if (command === 'save-page') void savePage(tab);
  });
  // The badge follows the tab shown and what it shows (debounced in src/tab-badges.ts).
  browser.tabs.onActivated.addListener(({ tabId }) => badges.schedule(tabId, 'activated'));
  // A page starts loading (a link, a reload) or its address changes (an app's route): not its
  // `complete`, which the page loading was already settled for (without `tabs`, `url` is left out).
  browser.tabs.onUpdated.addListener((tabId, change) => {
    if (change.url !== undefined || change.status === 'loading') badges.schedule(tabId, 'navigated');
  });
  browser.tabs.onRemoved.addListener((tabId) => badges.forget(tabId));
  // `tabs` granted or withdrawn in the options (or the browser's extension settings).
  browser.permissions.onAdded.addListener(() => void activeBadges());
  browser.permissions.onRemoved.addListener(() => void activeBadges());

  // Only the extension's own pages (the popup, the options) talk to the background: no content
  // script runs in web pages and no page may connect (no externally_connectable), and a
  // message from anywhere else is not answered.
  browser.runtime.onMessage.addListener((message: Message, sender, reply: (answer: unknown) => void) => {
    if (!ownPage(sender)) return false;
    const tab = () => ('tabId' in message ? browser.tabs.get(message.tabId) : Promise.resolve(undefined));
    const answer: Promise<unknown> =
      message.type === 'status'
        ? status(message.tabId)
        : message.type === 'save-page'
          ? tab().then((t) => savePage(t, message.why))
          : message.type === 'save-selection'
            ? tab().then((t) => saveSelection(t, message.text))
            : message.type === 'save-link'
              ? tab().then((t) => saveLink(t, message.url, message.text))
              : message.type === 'refresh'
                ? follower.refresh()
                : message.type === 'retry'
                  ? follower.retry(message.id).then(
                      () => ({ error: null }),
                      (err: unknown) => ({ error: (err as Error).message ?? String(err) }),
                    )
                  : flush();
    answer.then(reply, (err: unknown) => reply({ kind: 'refused', error: String(err) }));
    return true; // the answer comes asynchronously
  });
  // A popup showing the captures followed holds this port: the stream stays open until it closes.
  browser.runtime.onConnect.addListener((port) => {
    if (port.name !== WATCH_PORT || !ownPage(port.sender)) return port.disconnect();
    port.onDisconnect.addListener(follower.watch());
  });
});
