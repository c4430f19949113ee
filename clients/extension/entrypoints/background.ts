import { browser, type Browser } from 'wxt/browser';
import { defineBackground } from 'wxt/utils/define-background';
import { apiClient, type Api } from '../src/api';
import type { Message, Status } from '../src/messages';
import { LIMITS, capturable, linkCapture, pageCapture, readPage, selectionCapture, type PageRead } from '../src/page';
import { CaptureQueue, type SaveOutcome } from '../src/queue';
import { loadSettings } from '../src/settings';

const storage = browser.storage.local;
const queue = new CaptureQueue(storage);
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
 * The toolbar badge of a tab: how many captures wait to be sent (orange), else ✓ (green)
 * when the page is captured already.
 */
async function badge(tabId: number, url: string | undefined): Promise<Status['captured']> {
  const waiting = (await queue.waiting()).length;
  let captured: Status['captured'] = null;
  if (!waiting && capturable(url)) captured = (await (await api())?.check(url).catch(() => null)) ?? null;
  const text = waiting ? String(waiting) : captured ? '✓' : '';
  await browser.action.setBadgeBackgroundColor({ tabId, color: waiting ? '#c2410c' : '#16a34a' });
  await browser.action.setBadgeText({ tabId, text });
  return captured;
}

async function save(
  tab: Browser.tabs.Tab | undefined,
  make: () => Promise<Parameters<CaptureQueue['save']>[1]>,
): Promise<SaveOutcome> {
  if (!tab?.id || !capturable(tab.url))
    return { kind: 'refused', error: 'Only web pages (http and https) can be saved' };
  const outcome = await queue.save(await api(), await make());
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
  const sent = client ? (await queue.flush(client)).length : 0;
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

  browser.runtime.onMessage.addListener((message: Message, _sender, reply: (answer: unknown) => void) => {
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
              : flush();
    answer.then(reply, (err: unknown) => reply({ kind: 'refused', error: String(err) }));
    return true; // the answer comes asynchronously
  });
});
