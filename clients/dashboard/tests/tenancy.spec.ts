import { apiSession, expect, nav, signIn, test } from './support/fixtures';

test('a second tenant never sees the first one’s nodes, graph, captures or keys', async ({ browser }) => {
  const first = await apiSession('owner@example.com');
  const secret = await first.call<{ id: string }>('POST', '/nodes', { title: 'Owner secret plan' });
  await first.call('POST', '/captures', {
    title: 'Owner capture',
    content_type: 'note',
    raw_content: 'private',
    source: 'api',
  });
  await first.call('POST', '/auth/api-keys', { name: 'owner key' });

  const context = await browser.newContext();
  const page = await context.newPage();
  await signIn(page, 'intruder@example.com');
  await expect(page.getByText('Your graph is empty.')).toBeVisible();
  await nav(page, 'Nodes').click();
  await expect(page.getByText('No nodes match.')).toBeVisible();
  await page.goto(`${new URL(page.url()).origin}/nodes/${secret.id}`);
  await expect(page.getByRole('alert')).toBeVisible();
  await expect(page.getByText('Owner secret plan')).toHaveCount(0);
  await nav(page, 'Captures').click();
  await expect(page.getByText('No captures.')).toBeVisible();
  await nav(page, 'Settings › API Keys').click();
  await expect(page.getByText('No API keys yet.')).toBeVisible();
  await context.close();
});
