import { expect, expectAccessible, nav, screenshot, signIn, test } from './support/fixtures';

/** A browser export with folders, a bookmark twice, a bookmarklet and an entry with no address (line 13): 4 bookmarks read (the broken entry is counted as invalid only). */
const EXPORT = `<!DOCTYPE NETSCAPE-Bookmark-file-1>
<TITLE>Bookmarks</TITLE>
<DL><p>
  <DT><H3>Reading</H3>
  <DL><p>
    <DT><A HREF="https://bookmarks.invalid/essay" ADD_DATE="1550000000" TAGS="habits">An essay</A>
    <DD>Read twice
    <DT><H3>Video</H3>
    <DL><p>
      <DT><A HREF="https://bookmarks.invalid/talk">A talk</A>
    </DL><p>
  </DL><p>
  <DT><A>no address</A>
  <DT><A HREF="javascript:alert(document.cookie)">bookmarklet</A>
  <DT><A HREF="https://bookmarks.invalid/essay">The essay again</A>
</DL><p>
`;

/** 1,500 bookmarks of one host: the server drips them into the pipeline, so this import runs for a while. */
const MANY = `<!DOCTYPE NETSCAPE-Bookmark-file-1>\n<DL><p>\n${Array.from(
  { length: 1500 },
  (_, i) => `<DT><A HREF="https://bookmarks.invalid/many/${i}">Many ${i}</A>`,
).join('\n')}\n</DL><p>\n`;

const file = (name: string, text: string) => ({ name, mimeType: 'text/html', buffer: Buffer.from(text) });

test('Captures › Import bookmarks: a file of no known format refused; a Netscape export imported with its counts and its broken line; a long import cancelled; polling stops off the page', async ({
  page,
}) => {
  await signIn(page, 'imports@example.com');
  await nav(page, 'Captures › Import bookmarks').click();
  await expect(page.getByRole('heading', { name: 'Import bookmarks', level: 1 })).toBeVisible();
  await expect(nav(page, 'Captures › Import bookmarks')).toHaveAttribute('aria-current', 'page');
  await expect(nav(page, 'Captures')).not.toHaveAttribute('aria-current', 'page');
  await expect(page.getByText('No imports yet.')).toBeVisible();
  await expect(page.getByLabel('Bookmark file')).toHaveAttribute('accept', /\.html,\.htm,\.csv,\.json/);
  await expectAccessible(page);

  // No file, then a file that is no bookmark export: the API's 400 is shown as other errors are.
  await page.getByRole('button', { name: 'Start import' }).click();
  await expect(page.getByRole('alert')).toHaveText('Choose a bookmark file first.');
  await page.getByLabel('Bookmark file').setInputFiles(file('notes.html', 'Dear diary,\nnothing to see.\n'));
  await page.getByRole('button', { name: 'Start import' }).click();
  const refused = page.getByRole('alert');
  await expect(refused).toContainText('file');
  await expect(refused).toContainText('format');
  await expect(page.getByTestId('import-progress')).toHaveCount(0);
  await expectAccessible(page);

  // A small export, folders as PARA items: the progress reaches completed with the right counts.
  await page.getByLabel('Bookmark file').setInputFiles(file('bookmarks.html', EXPORT));
  await page.getByLabel('Folders also become PARA items').check();
  await page.getByRole('button', { name: 'Start import' }).click();
  const current = page.getByTestId('import-progress');
  await expect(current.getByRole('heading', { name: 'bookmarks.html' })).toBeVisible();
  await expect(current.getByTestId('import-status')).toHaveText('completed');
  const bar = current.getByRole('progressbar', { name: 'Import progress' });
  await expect(bar).toHaveAttribute('value', String(Buffer.byteLength(EXPORT)));
  await expect(bar).toHaveAttribute('max', String(Buffer.byteLength(EXPORT)));
  await expect(current).toContainText('100%');
  await expect(current).toContainText('folders become PARA items');
  const counts = current.getByTestId('import-counts');
  for (const [label, n] of [
    ['Bookmarks read', 4],
    ['Captures created', 2],
    ['Duplicates', 1],
    ['Skipped (not web addresses)', 1],
    ['Invalid', 1],
  ] as const)
    await expect(counts.locator(`dt:text-is("${label}") + dd`)).toHaveText(String(n));
  await expect(current.getByTestId('import-errors').getByRole('listitem')).toHaveText([/^Line 13: .*no HREF/]);
  await expect(current.getByRole('button', { name: 'Cancel import' })).toHaveCount(0);
  const list = page.getByTestId('import-list');
  await expect(list.getByRole('row').nth(1)).toContainText('bookmarks.html');
  await expect(list.getByRole('row').nth(1)).toContainText('completed');
  await expectAccessible(page);
  await screenshot(page, 'imports');

  // A long import: queued or running with Cancel; leaving the page stops the polling.
  await page.getByLabel('Bookmark file').setInputFiles(file('many.html', MANY));
  await page.getByLabel('Folders also become PARA items').uncheck();
  await page.getByRole('button', { name: 'Start import' }).click();
  await expect(current.getByRole('heading', { name: 'many.html' })).toBeVisible();
  await expect(current.getByTestId('import-status')).toHaveText(/queued|running/);
  const polls: string[] = [];
  page.on('request', (r) => /\/api\/v1\/imports\/imp_/.test(r.url()) && polls.push(r.url()));
  // Polled: the status and the bar move as the server reads the file (the embedded server may
  // answer its first look only after the import's first batches are committed: seconds).
  await expect(current.getByTestId('import-status')).toHaveText('running', { timeout: 60_000 });
  await expect.poll(() => polls.length).toBeGreaterThan(1);
  await expectAccessible(page);
  await nav(page, 'Captures').click();
  await expect(page.getByRole('heading', { name: 'Captures', level: 1 })).toBeVisible();
  const left = polls.length;
  await page.waitForTimeout(2500);
  expect(polls.length).toBe(left);

  // Back on the page, the running import is shown again; Cancel stops it.
  await nav(page, 'Captures › Import bookmarks').click();
  await expect(current.getByRole('heading', { name: 'many.html' })).toBeVisible();
  await current.getByRole('button', { name: 'Cancel import' }).click();
  await expect(current.getByTestId('import-status')).toHaveText('cancelled');
  await expect(current.getByRole('button', { name: 'Cancel import' })).toHaveCount(0);
  await expect(list.getByRole('row').nth(1)).toContainText('many.html');
  await expect(list.getByRole('row').nth(1)).toContainText('cancelled');
  await expectAccessible(page);
  await screenshot(page, 'imports-cancelled');

  // Show opens a past import again: its broken line is still there.
  await list.getByRole('button', { name: /^Show bookmarks\.html/ }).click();
  await expect(current.getByRole('heading', { name: 'bookmarks.html' })).toBeVisible();
  await expect(current.getByTestId('import-errors')).toContainText('Line 13');
});
