import { browser } from 'wxt/browser';
import { STORAGE_KEY, followedOf } from '../../src/followed';
import { WATCH_PORT, type Message, type Reply, type Status } from '../../src/messages';
import { loadSettings } from '../../src/settings';
import { link, renderFollowed } from './followed';

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const ask = <M extends Message>(message: M) => browser.runtime.sendMessage(message) as Promise<Reply<M>>;

function showStatus(status: Status) {
  const state = $('state');
  $('save').hidden = !status.ready || !status.capturable;
  if (!status.ready) {
    state.textContent = 'Set the server and an API key in the options first.';
  } else if (status.hidden) {
    state.textContent = 'The extension cannot see this page’s address: open it from the toolbar button on the page.';
  } else if (!status.capturable) {
    state.textContent = 'Only web pages (http and https) can be saved.';
  } else if (status.captured) {
    state.replaceChildren(
      `Captured ${new Date(status.captured.captured_at).toLocaleString()} (${status.captured.status}). `,
      link(`${status.server}/captures/${encodeURIComponent(status.captured.capture_id)}`, 'Open the capture'),
    );
    $('save-button').textContent = 'Save again';
  } else {
    state.textContent = status.checkError ? `Not checked: ${status.checkError}` : 'Not captured yet.';
  }
  const waiting = $('waiting');
  waiting.hidden = status.waiting === 0;
  waiting.textContent = `${status.waiting} capture${status.waiting === 1 ? '' : 's'} waiting to be sent (offline).`;
  $('refused').replaceChildren(
    ...status.refused.slice(0, 5).map((r) => {
      const li = document.createElement('li');
      li.textContent = `Refused: ${r.title} — ${r.error}`;
      return li;
    }),
  );
}

/**
 * The captures this browser made lately, kept up to date by the background (it follows them
 * through the server's live events and writes them to storage.local): read again from the
 * server as the popup opens, then redrawn on every change while it is open.
 */
async function showFollowed() {
  // While this port is open the background keeps the stream open, whatever the captures' age.
  browser.runtime.connect({ name: WATCH_PORT });
  const settings = await loadSettings(browser.storage.local);
  const draw = (value: unknown) =>
    renderFollowed($('followed'), followedOf(value), settings?.server ?? null, async (id) => {
      const { error } = await ask({ type: 'retry', id });
      if (error) $('result').textContent = `Not retried: ${error}`;
    });
  browser.storage.local.onChanged.addListener((changes) => {
    if (STORAGE_KEY in changes) draw(changes[STORAGE_KEY]!.newValue);
  });
  draw((await browser.storage.local.get(STORAGE_KEY))[STORAGE_KEY]);
  // Read again from the server (a capture may have been processed, failed or deleted since);
  // what changed comes back through storage.
  await ask({ type: 'refresh' });
}

async function main() {
  // The page the person is looking at: the active tab of the last focused browser window.
  const window = await browser.windows.getLastFocused({ windowTypes: ['normal'] });
  const [tab] = await browser.tabs.query({ active: true, windowId: window.id! });
  $('options').addEventListener('click', (e) => {
    e.preventDefault();
    void browser.runtime.openOptionsPage();
  });
  void showFollowed();
  if (!tab?.id) return;
  const tabId = tab.id;
  showStatus(await ask({ type: 'status', tabId }));
  // The page's own line follows its capture too (processed, failed) while the popup is open.
  browser.storage.local.onChanged.addListener((changes) => {
    if (STORAGE_KEY in changes) void ask({ type: 'status', tabId }).then(showStatus);
  });
  $('save').addEventListener('submit', (e) => {
    e.preventDefault();
    const button = $<HTMLButtonElement>('save-button');
    button.disabled = true;
    void ask({ type: 'save-page', tabId, why: $<HTMLTextAreaElement>('why').value }).then(async (outcome) => {
      button.disabled = false;
      const result = $('result');
      if (outcome.kind === 'queued')
        result.textContent = `Kept to send later (${outcome.reason}); ${outcome.waiting} waiting.`;
      else if (outcome.kind === 'refused') result.textContent = `Not saved: ${outcome.error}`;
      else result.textContent = 'Saved.';
      showStatus(await ask({ type: 'status', tabId }));
    });
  });
}

void main();
