import { nav, expect, expectAccessible, screenshot, signIn, test } from './support/fixtures';

test('captures inbox: a note and a dropped file reach processed live; activity, provenance, archive, dismiss', async ({
  page,
}) => {
  await signIn(page, 'captures@example.com');
  await nav(page, 'Captures').click();
  await expect(page.getByText('Live updates on')).toBeVisible();
  await expectAccessible(page);

  // A note: created, then processed by the pipeline; the page updates from GET /events, no reload.
  await page.getByLabel('Title').fill('Spaced repetition meeting');
  await page
    .getByLabel('Note')
    .fill('We agreed to review cards at growing intervals. The forgetting curve decays fast.');
  await page.getByRole('button', { name: 'Capture', exact: true }).click();
  await expect(page.getByRole('heading', { name: 'Spaced repetition meeting' })).toBeVisible();
  await expect(page.getByTestId('detail-status')).toHaveText('processed', { timeout: 60_000 });
  await expect(page.getByTestId('activity')).toContainText('processed');
  await expect(page.getByText(/^Run created · processed/)).toBeVisible();
  await expect(page.getByRole('link', { name: /^Open node/ })).toHaveCount(1);

  // The nodes list filtered by the capture that made them.
  await page.getByRole('link', { name: 'List the nodes it made' }).click();
  await expect(page.getByLabel('From capture')).toHaveValue(/^cap_/);
  await expect(page.getByRole('table').getByRole('link')).toHaveCount(1);
  await nav(page, 'Captures').click();

  // A file dropped on the form, uploaded with progress.
  await page.getByRole('button', { name: 'File', exact: true }).click();
  await page.getByTestId('dropzone').evaluate((zone) => {
    const data = new DataTransfer();
    const text = '# Interleaving\n\nMixing topics while practising improves transfer between them.\n';
    data.items.add(new File([text], 'interleaving.md', { type: 'text/markdown' }));
    zone.dispatchEvent(new DragEvent('drop', { dataTransfer: data, bubbles: true, cancelable: true }));
  });
  await expect(page.getByTestId('dropzone')).toContainText('interleaving.md');
  await page.getByLabel('Why it matters (optional)').fill('study technique');
  await page.getByRole('button', { name: 'Upload', exact: true }).click();
  await expect(page.getByTestId('detail-status')).toHaveText('processed', { timeout: 60_000 });
  await expect(page.getByText('Why: study technique')).toBeVisible();
  await expect(page.getByTestId('captures').getByTestId('capture-status')).toHaveText(['processed', 'processed']);
  await expectAccessible(page);
  await screenshot(page, 'captures');

  // Lifecycle: archive (listed under archived), then dismiss the other one with confirmation.
  await page.getByRole('button', { name: 'Archive', exact: true }).click();
  await expect(page.getByTestId('detail-status')).toHaveText('archived');
  await page.getByRole('group', { name: 'Filter by status' }).getByRole('button', { name: 'archived' }).click();
  await expect(page.getByTestId('captures').getByRole('row')).toHaveCount(1);
  await page.getByTestId('captures').getByRole('link').first().click();
  await page.getByRole('button', { name: 'Unarchive', exact: true }).click();
  await expect(page.getByTestId('detail-status')).not.toHaveText('archived');
  await page.getByRole('group', { name: 'Filter by status' }).getByRole('button', { name: 'all' }).click();
  await page.getByRole('link', { name: 'Spaced repetition meeting' }).click();
  await page.getByRole('button', { name: 'Dismiss', exact: true }).click();
  await page.getByRole('dialog', { name: 'Dismiss this capture?' }).getByRole('button', { name: 'Dismiss' }).click();
  await expect(page.getByTestId('detail-status')).toHaveText('dismissed');
  await expect(page.getByTestId('activity')).toContainText('dismissed');
});
