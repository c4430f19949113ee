import { browser, type Browser } from 'wxt/browser';
import { defineBackground } from 'wxt/utils/define-background';
import { apiClient, type Api } from '../src/api';
import { badgeFor } from '../src/badge';
import { openEventStream } from '../src/event-stream';
import type { Followed } from '../src/followed';
import { Follower } from '../src/follower';
import { WATCH_PORT, fromOwnPage, type Message, type Status } from '../src/messages';
import { LIMITS, capturable, linkCapture, pageCapture, readPage, selectionCapture, type PageRead } from '../src/page';
import { CaptureQueue, type SaveOutcome } from '../src/queue';
import { loadSettings } from '../src/settings';

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

/** The toolbar badge of a tab (src/badge.ts): what waits to be sent, else the page's capture state. */
async function badge(tabId: number, url: string | undefined): Promise<Status['captured']> {
  const waiting = (await queue.waiting()).length;
  let captured: Status['captured'] = null;
  if (!waiting && capturable(url)) captured = (await (await api())?.check(url).catch(() => null)) ?? null;
  const shown = badgeFor(waiting, captured);
  await browser.action.setBadgeBackgroundColor({ tabId, color: shown.color });
  await browser.action.setBadgeText({ tabId, text: shown.text });
  await browser.action.setTitle({ tabId, title: shown.title });
  return captured;
}

/** A followed capture changed (an event, a read): the badges of the tabs showing its address follow. */
async function badgesOf(changed: Followed[]): Promise<void> {
  const urls = new Set(changed.map((f) => f.url).filter((u): u is string => !!u));
  if (!urls.size) return;
  const tabs = await browser.tabs.query({});
  await Promise.all(
    tabs.filter((t) => t.id && t.url && urls.has(t.url)).map((t) => badge(t.id!, t.url).catch(() => undefined)),
  );
}

async function save(
  tab: Browser.tabs.Tab | undefined,
  make: () => Promise<Parameters<CaptureQueue['save']>[1]>,
): Promise<SaveOutcome> {
  if (!tab?.id || !capturable(tab.url))
    return { kind: 'refused', error: 'Only web pages (http and https) can be saved' };
  const outcome = await queue.save(await api(), await make());
  if (outcome.kind === 'saved') await follower.track(outcome.capture);
  await badge(tab.id, tab.url);
  return outcome;
}

const savePage = (tab: Browser.tabs.Tab | undefined, why?: string) =>
  save(tab, async () => pageCapture(await read(tab!), why));

const saveSelection = (tab: Browser.tabs.Tab | undefined, text: string) =>
  save(tab, async () => selectionCapture(tab!.url!, tab!.title ?? '', text));

async function saveLink(tab: Browser.tabs.Tab | undefined, url: string, text?: string): Promise<SaveOutcome> {
  if (!capturable(url)) return { kind: 'refused', error: 'Only web links (http and https) can be saved' };
  return save(tab, async () => linkCapture(url, text));
}

async function flush(): Promise<{ sent: number; waiting: number }> {
  const client = await api();
  const made = client ? await queue.flush(client) : [];
  // Sent at last: followed like a capture saved now.
  for (const capture of made) await follower.track(capture);
  const sent = made.length;
  const [tab] = await browser.tabs.query({ active: true, lastFocusedWindow: true });
  if (tab?.id) await badge(tab.id, tab.url);
  return { sent, waiting: (await queue.waiting()).length };
}

async function status(tabId: number): Promise<Status> {
  const tab = await browser.tabs.get(tabId);
  const settings = await loadSettings(storage);
  let captured: Status['captured'] = null;
  let checkError: string | null = null;
  if (settings && capturable(tab.url)) {
    try {
      captured = await apiClient(settings).check(tab.url);
    } catch (err) {
      checkError = (err as Error).message;
    }
  }
  await badge(tabId, tab.url).catch(() => undefined);
  return {
    ready: settings !== null,
    server: settings?.server ?? null,
    captured,
    checkError,
    waiting: (await queue.waiting()).length,
    refused: await queue.refused(),
    capturable: capturable(tab.url),
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
  browser.tabs.onActivated.addListener(({ tabId }) => void browser.tabs.get(tabId).then((t) => badge(tabId, t.url)));
  browser.tabs.onUpdated.addListener((tabId, change, tab) => {
    if (change.status === 'complete') void badge(tabId, tab.url).catch(() => undefined);
  });

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
