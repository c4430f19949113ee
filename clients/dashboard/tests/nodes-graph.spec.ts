import { nav, apiSession, expect, expectAccessible, screenshot, signIn, test } from './support/fixtures';

interface Node {
  id: string;
  title: string;
}

test('nodes: create with markdown preview (raw HTML stays text), link, edit status, delete with confirmation', async ({
  page,
}) => {
  await signIn(page, 'nodes@example.com');
  await nav(page, 'Nodes').click();
  await expectAccessible(page);

  await page.getByRole('button', { name: 'New node' }).click();
  await page.getByLabel('Title').fill('Beta target');
  await page.getByRole('button', { name: 'Create node' }).click();
  await expect(page.getByRole('heading', { name: 'Edit “Beta target”' })).toBeVisible();

  await page.getByRole('link', { name: '← All nodes' }).click();
  await page.getByRole('button', { name: 'New node' }).click();
  await page.getByLabel('Title').fill('Alpha source');
  await page
    .getByRole('textbox', { name: 'Content (markdown)' })
    .fill('Some **bold** words <img src=x onerror="window.pwned=1">');
  await page.getByLabel('Tags (comma-separated)').fill('learning, memory');
  await page.getByRole('button', { name: 'Preview' }).click();
  await expect(page.getByTestId('preview').locator('strong')).toHaveText('bold');
  await expect(page.getByTestId('preview').locator('img')).toHaveCount(0);
  await page.getByRole('button', { name: 'Create node' }).click();
  await expect(page.getByRole('heading', { name: 'Edit “Alpha source”' })).toBeVisible();

  // Link Alpha -> Beta with a type and weight.
  await page.getByPlaceholder('Find a node to link').fill('Beta');
  await page.getByRole('button', { name: 'Find', exact: true }).click();
  await page.getByRole('button', { name: 'Link to Beta target' }).click();
  await page.getByLabel('Type').fill('supports');
  await page.getByLabel('Weight').fill('0.8');
  await page.getByRole('button', { name: 'Save links' }).click();
  await expect(page.getByText(/Links saved/)).toBeVisible();
  await page.getByLabel('Status').selectOption('validated');
  await page.getByRole('button', { name: 'Save node' }).click();
  await expect(page.getByText(/^Saved at/)).toBeVisible();
  await expectAccessible(page);
  await screenshot(page, 'node-editor');

  await page.reload();
  await expect(page.getByRole('link', { name: 'Beta target' })).toBeVisible();
  await expect(page.getByLabel('Type')).toHaveValue('supports');
  await expect(page.getByLabel('Weight')).toHaveValue('0.8');
  await expect(page.getByLabel('Status')).toHaveValue('validated');
  expect(await page.evaluate(() => (window as unknown as { pwned?: number }).pwned)).toBeUndefined();

  // Search and filters.
  await page.getByRole('link', { name: '← All nodes' }).click();
  await page.getByLabel('Search nodes').fill('Alpha');
  await page.getByLabel('Mode').selectOption('keyword');
  await page.getByRole('button', { name: 'Search' }).click();
  await expect(page.getByRole('link', { name: 'Alpha source' })).toBeVisible();
  await expect(page.getByRole('link', { name: 'Beta target' })).toHaveCount(0);
  await page.getByLabel('Search nodes').fill('');
  await page.getByRole('button', { name: 'Search' }).click();
  await page.getByLabel('Status').selectOption('validated');
  await expect(page.getByRole('link', { name: 'Alpha source' })).toBeVisible();
  await expect(page.getByRole('link', { name: 'Beta target' })).toHaveCount(0);
  await screenshot(page, 'nodes');

  // Delete with confirmation.
  await page.getByLabel('Status').selectOption('');
  await page.getByRole('link', { name: 'Beta target' }).click();
  await page.getByRole('button', { name: 'Delete node' }).click();
  const dialog = page.getByRole('dialog', { name: 'Delete this node?' });
  await expectAccessible(page);
  await dialog.getByRole('button', { name: 'Delete node' }).click();
  await expect(page.getByRole('heading', { name: 'Nodes' })).toBeVisible();
  await expect(page.getByRole('link', { name: 'Alpha source' })).toBeVisible();
  await expect(page.getByRole('link', { name: 'Beta target' })).toHaveCount(0);
});

test('graph explorer: opens at the hub, pages its links, expands a frontier node and merges it', async ({ page }) => {
  const email = 'graph@example.com';
  const { call } = await apiSession(email);
  const create = (title: string, para?: string) =>
    call<Node>('POST', '/nodes', { title, content: `About ${title}.`, para_item_ids: para ? [para] : [] });
  // Nodes of each PARA category (and none), for the colours.
  const items = await Promise.all(
    (['projects', 'areas', 'resources'] as const).map((category) =>
      call<{ id: string }>('POST', '/para', { category, label: `Some ${category}` }),
    ),
  );
  const hub = await create('Hub of learning', items[1]!.id);
  const leaves: Node[] = [];
  for (let i = 0; i < 24; i++) leaves.push(await create(`Leaf ${String(i).padStart(2, '0')}`, items[i % 4]?.id));
  const far = await create('Far away idea');
  await call('PATCH', `/nodes/${hub.id}/links`, {
    links: leaves.map((l, i) => ({ target_id: l.id, type: i % 2 ? 'related' : 'supports', weight: 0.5 })),
  });
  // Links are replaced whole (and mirrored): Leaf 00 keeps its link back to the hub.
  await call('PATCH', `/nodes/${leaves[0]!.id}/links`, {
    links: [
      { target_id: hub.id, type: 'supports', weight: 0.5 },
      { target_id: far.id, type: 'extends', weight: 1 },
    ],
  });

  await signIn(page, email);
  await expect(page.getByRole('heading', { name: 'Hub of learning' })).toBeVisible();
  await page.getByLabel('Depth').selectOption('1');
  await expect(page.getByTestId('graph-count')).toContainText('25 nodes · 24 links · 1 to expand');
  expect(await page.evaluate(() => window.__kgGraphStats?.firstRenderMs)).toBeGreaterThan(0);

  await page.getByRole('button', { name: 'Show links' }).click();
  await expect(page.getByTestId('neighbors').getByRole('listitem')).toHaveCount(20);
  await expectAccessible(page);
  await screenshot(page, 'graph');
  await page.getByRole('button', { name: 'More links' }).click();
  await expect(page.getByTestId('neighbors').getByRole('listitem')).toHaveCount(24);
  await expect(page.getByRole('button', { name: 'More links' })).toHaveCount(0);

  // Leaf 00 is on the frontier (it links further out): a click on it in the WebGL view expands and merges.
  const at = await page.evaluate((id) => window.__kgGraphStats!.positionOf(id), leaves[0]!.id);
  const canvas = (await page.locator('.sigma').boundingBox())!;
  await page.mouse.click(canvas.x + at!.x, canvas.y + at!.y);
  await expect(page.getByRole('heading', { name: 'Leaf 00' })).toBeVisible();
  await expect(page.getByTestId('graph-count')).toContainText('26 nodes · 25 links · 0 to expand');
  // A node of the panel's lists is selected from the keyboard too.
  await page.getByRole('button', { name: 'Show links' }).click();
  await page.getByTestId('neighbors').getByRole('button', { name: 'Far away idea' }).focus();
  await page.keyboard.press('Enter');
  await expect(page.getByRole('heading', { name: 'Far away idea' })).toBeVisible();
});
