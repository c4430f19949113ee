import { nav, apiSession, expect, expectAccessible, screenshot, signIn, test } from './support/fixtures';

test('PARA: create, nodes of an item, complete/undo, archive/unarchive, match, rescan with its 429 wait', async ({
  page,
}) => {
  const email = 'para@example.com';
  const { call } = await apiSession(email);
  await signIn(page, email);
  await nav(page, 'PARA').click();
  await expectAccessible(page);

  await page.getByLabel('Label').fill('Write thesis');
  await page.getByLabel('Description (optional, used to match nodes)').fill('thesis chapters on memory research');
  await page.getByRole('button', { name: 'Create item' }).click();
  const project = page.getByTestId('para-write-thesis');
  await expect(project).toContainText('active');
  await page.getByLabel('Category').selectOption('areas');
  await page.getByLabel('Label').fill('Health');
  await page.getByRole('button', { name: 'Create item' }).click();
  await expect(page.getByTestId('para-health')).toBeVisible();

  const items = await call<{ data: { id: string; slug: string }[] }>('GET', '/para');
  const thesis = items.data.find((i) => i.slug === 'write-thesis')!;
  await call('POST', '/nodes', { title: 'Chapter one outline', para_item_ids: [thesis.id] });

  await project.getByRole('button', { name: 'Write thesis' }).click();
  await expect(page.getByTestId('item-nodes')).toContainText('Chapter one outline');

  await project.getByRole('button', { name: 'Complete' }).click();
  await expect(project).toContainText('completed');
  await project.getByRole('button', { name: 'Undo complete' }).click();
  await expect(project).toContainText('active');

  await project.getByRole('button', { name: 'Match' }).click();
  await expect(page.getByTestId('job')).toContainText('Match done');

  await page.getByRole('button', { name: 'Rescan orphan nodes' }).click();
  await expect(page.getByTestId('job')).toContainText('Rescan');
  await page.getByRole('button', { name: 'Rescan orphan nodes' }).click();
  await expect(page.getByText(/you can start another in \d+ s/)).toBeVisible();
  await expect(page.getByRole('button', { name: 'Rescan orphan nodes' })).toBeDisabled();

  await page.getByTestId('para-health').getByRole('button', { name: 'Archive' }).click();
  await expect(page.getByTestId('para-health')).toContainText('archived');
  await expectAccessible(page);
  await screenshot(page, 'para');
  await page.getByTestId('para-health').getByRole('button', { name: 'Unarchive' }).click();
  await expect(page.getByTestId('para-health')).toContainText('active');
  await page.getByTestId('para-health').getByRole('button', { name: 'Archive' }).click();
  await expect(page.getByTestId('para-health')).toContainText('archived');
  const archived = await call<{ data: { slug: string }[] }>('GET', '/para?status=archived');
  expect(archived.data.map((i) => i.slug)).toEqual(['health']);
});
