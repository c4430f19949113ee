import { browser } from 'wxt/browser';
import type { Capture } from '../../src/api';
import { apiClient } from '../../src/api';
import type { Message, Reply, Status } from '../../src/messages';
import { loadSettings } from '../../src/settings';

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const ask = <M extends Message>(message: M) => browser.runtime.sendMessage(message) as Promise<Reply<M>>;

function link(href: string, text: string): HTMLAnchorElement {
  const a = document.createElement('a');
  a.href = href;
  a.target = '_blank';
  a.rel = 'noopener noreferrer';
  a.textContent = text;
  return a;
}

function showStatus(status: Status) {
  const state = $('state');
  $('save').hidden = !status.ready || !status.capturable;
  if (!status.ready) {
    state.textContent = 'Set the server and an API key in the options first.';
  } else if (!status.capturable) {
    state.textContent = 'Only web pages (http and https) can be saved.';
  } else if (status.captured) {
    state.replaceChildren(
      `Captured ${new Date(status.captured.captured_at).toLocaleString()} (${status.captured.status}). `,
      link(`${status.server}/captures/${status.captured.capture_id}`, 'Open the capture'),
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

/** Follows a new capture while the popup is open: its status, then its node once processed. */
async function follow(capture: Capture) {
  const settings = await loadSettings(browser.storage.local);
  if (!settings) return;
  const api = apiClient(settings);
  const result = $('result');
  for (let current = capture; ;) {
    const parts: (string | Node)[] = [
      `Saved (${current.status}). `,
      link(`${settings.server}/captures/${current.id}`, 'Open the capture'),
    ];
    const node = current.node_ids[0];
    if (node) parts.push(' · ', link(`${settings.server}/nodes/${node}`, 'Open its node'));
    result.replaceChildren(...parts);
    if (['processed', 'failed', 'archived', 'dismissed'].includes(current.status)) return;
    await new Promise((r) => setTimeout(r, 1000));
    current = await api.get(current.id).catch(() => current);
  }
}

async function main() {
  // The page the person is looking at: the active tab of the last focused browser window.
  const window = await browser.windows.getLastFocused({ windowTypes: ['normal'] });
  const [tab] = await browser.tabs.query({ active: true, windowId: window.id! });
  $('options').addEventListener('click', (e) => {
    e.preventDefault();
    void browser.runtime.openOptionsPage();
  });
  if (!tab?.id) return;
  const tabId = tab.id;
  showStatus(await ask({ type: 'status', tabId }));
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
      showStatus(await ask({ type: 'status', tabId }));
      if (outcome.kind === 'saved') await follow(outcome.capture);
    });
  });
}

void main();
