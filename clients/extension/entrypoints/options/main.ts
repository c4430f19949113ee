import { browser, type Browser } from 'wxt/browser';
import { apiClient } from '../../src/api';
import type { Message, Reply } from '../../src/messages';
import { CaptureQueue } from '../../src/queue';
import { checkApiKey, loadSettings, saveSettings, serverOrigin } from '../../src/settings';

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const ask = <M extends Message>(message: M) => browser.runtime.sendMessage(message) as Promise<Reply<M>>;
const storage = browser.storage.local;

async function showWaiting() {
  const waiting = (await new CaptureQueue(storage).waiting()).length;
  $('waiting').textContent = waiting ? `${waiting} capture${waiting === 1 ? '' : 's'} waiting.` : 'Nothing.';
}

/** Every tab's address, for the badge on any site (optional; README.md, "The badge and your browsing"). */
const TABS: Browser.permissions.Permissions = { permissions: ['tabs'] };

async function showTabs() {
  const on = await browser.permissions.contains(TABS);
  const toggle = $<HTMLButtonElement>('tabs-toggle');
  $('tabs-state').textContent = on ? 'On: every web page you switch to.' : 'Off.';
  toggle.textContent = on ? 'Turn off' : 'Allow';
  toggle.dataset['on'] = String(on);
}

/**
 * Every listener is attached before anything is awaited: a click on "Save and test" while the
 * page still reads its settings would otherwise submit the form natively and reload the page,
 * empty (a busy browser took seconds once).
 */
function main() {
  const loaded = loadSettings(storage);
  void loaded.then((settings) => {
    const server = $<HTMLInputElement>('server');
    // What the person has typed meanwhile stays.
    if (settings && !server.value) server.value = settings.server;
  });
  $('settings').addEventListener('submit', (e) => {
    e.preventDefault();
    const result = $('result');
    result.textContent = 'Testing…';
    void (async () => {
      try {
        const settings = await loaded;
        const server = serverOrigin($<HTMLInputElement>('server').value);
        const apiKey = checkApiKey($<HTMLInputElement>('api-key').value || settings?.apiKey || '');
        // Only the configured server (an optional host permission, asked for here, in the click).
        if (!(await browser.permissions.request({ origins: [`${server}/*`] })))
          throw new Error(`The extension needs your permission to reach ${server}`);
        const me = await apiClient({ server, apiKey }).me();
        await saveSettings(storage, { server, apiKey });
        $<HTMLInputElement>('api-key').value = '';
        result.textContent = `Connected to ${server} as ${me.email ?? me.user_id}.`;
        const sent = await ask({ type: 'flush' });
        if (sent.sent) result.textContent += ` ${sent.sent} waiting capture(s) sent.`;
        await showWaiting();
      } catch (err) {
        result.textContent = `Not saved: ${(err as Error).message}`;
      }
    })();
  });
  browser.permissions.onAdded.addListener(() => void showTabs());
  browser.permissions.onRemoved.addListener(() => void showTabs());
  $('tabs-toggle').addEventListener('click', (e) => {
    // Firefox grants only from the click's own handler: the request comes before anything awaited.
    const on = (e.currentTarget as HTMLElement).dataset['on'] === 'true';
    const asked = on ? browser.permissions.remove(TABS) : browser.permissions.request(TABS);
    void asked.then(
      async () => showTabs(),
      (err: unknown) => void ($('tabs-state').textContent = `Not changed: ${(err as Error).message ?? String(err)}`),
    );
  });
  $('flush').addEventListener('click', () => {
    void ask({ type: 'flush' }).then(async (r) => {
      $('result').textContent = `${r.sent} sent; ${r.waiting} still waiting.`;
      await showWaiting();
    });
  });
  void showWaiting();
  void showTabs();
}

main();
