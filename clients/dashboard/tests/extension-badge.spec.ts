import { expect, test } from '@playwright/test';
import { apiSession } from './support/fixtures';
import {
  badgeOf,
  type Capture,
  EXTENSION_TABS,
  freshProfile,
  launch,
  openPopup,
  openTab,
  recordChecks,
  settled,
  setUp,
  tell,
  titleOf,
  urlOfTab,
  usePageServers,
} from './support/extension';

/**
 * The browser extension's badge on pages of sites it may or may not read, with and without the
 * optional `tabs` permission (helpers and page servers: support/extension.ts).
 */
const site = usePageServers();

test('without `tabs`, a page on a site the extension may not read gets no badge, no check and no error', async () => {
  const kg = await apiSession('extension-badge-hidden@example.com');
  const { key } = await kg.call<{ key: string }>('POST', '/auth/api-keys', { name: 'browser extension' });
  const { context, worker, id } = await launch(freshProfile());
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
  const elsewhere = `${site.others}/article`;
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
  await page.goto(`${site.others}/next`);
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
  const { context, worker, id } = await launch(freshProfile(), EXTENSION_TABS);
  const errors: string[] = [];
  context.on('weberror', (e) => errors.push(String(e.error())));
  const options = await context.newPage();
  await setUp(options, id, key);
  await expect(options.locator('#tabs-state')).toHaveText('On: every web page you switch to.');
  const checks = await recordChecks(worker);

  // A page captured (elsewhere) with a fragment, on an origin the extension has no host permission for.
  const saved = `${site.others}/saved#part-2`;
  await kg.call('POST', '/captures', { title: 'Saved elsewhere', url: saved, content_type: 'article', source: 'api' });
  const { page, tabId } = await openTab(context, worker, saved);
  await expect.poll(() => titleOf(worker, tabId)).toMatch(/^Knowledge Graph: captured/);
  expect(await badgeOf(worker, tabId)).toMatch(/^[…✓!]$/);
  expect(await checks()).toEqual([saved]);
  // The same page without the fragment is another address (a save keeps the fragment as sent).
  await page.goto(`${site.others}/saved`);
  await expect.poll(checks).toEqual([saved, `${site.others}/saved`]);
  await expect.poll(() => badgeOf(worker, tabId)).toBe('');

  // An address with a user name and password: the tab holds them, the save and the check do not.
  const bare = `${site.others}/private#notes`;
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
  await expect.poll(async () => (await checks()).slice(before)).toEqual([`${site.others}/route/29`]);
  await settled();
  expect((await checks()).slice(before)).toEqual([`${site.others}/route/29`]);

  // Switching back and forth between two tabs checked a moment ago asks nothing again.
  const second = await openTab(context, worker, `${site.others}/second`);
  await expect.poll(checks).toContain(`${site.others}/second`);
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
  expect((await checks()).slice(before)).toEqual([`${site.others}/route/29`]);
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
