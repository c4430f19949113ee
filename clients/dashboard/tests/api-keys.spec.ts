import { nav, expect, expectAccessible, screenshot, signIn, test, BASE_URL } from './support/fixtures';

test('Settings › API Keys: create (raw key shown once, copy), use it, revoke with confirmation', async ({
  page,
  context,
}) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: BASE_URL() });
  await signIn(page, 'keys@example.com');
  await nav(page, 'Settings › API Keys').click();
  await expect(page.getByRole('heading', { name: 'Settings › API Keys' })).toBeVisible();
  await expectAccessible(page);

  await page.getByLabel('Name of the new key').fill('browser test key');
  await page.getByRole('button', { name: 'Create key' }).click();
  const raw = (await page.getByTestId('raw-key').textContent())!.trim();
  expect(raw).toMatch(/^\S+\.\S+$/);
  await page.getByRole('button', { name: 'Copy key' }).click();
  await expect(page.getByRole('button', { name: 'Copied' })).toBeVisible();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(raw);
  await expectAccessible(page);
  await screenshot(page, 'api-keys');

  // The key works against the API, and shows its last use after a reload.
  const me = await fetch(`${BASE_URL()}/api/v1/nodes`, { headers: { authorization: `ApiKey ${raw}` } });
  expect(me.status).toBe(200);
  await page.getByRole('button', { name: 'Done' }).click();
  await expect(page.getByTestId('raw-key')).toHaveCount(0);
  await page.reload();
  const row = page.getByRole('row', { name: /browser test key/ });
  await expect(row).toContainText('active');
  await expect(row).not.toContainText('never');

  await row.getByRole('button', { name: 'Revoke browser test key' }).click();
  const dialog = page.getByRole('dialog', { name: 'Revoke this API key?' });
  await expect(dialog).toBeVisible();
  await expectAccessible(page);
  await dialog.getByRole('button', { name: 'Revoke key' }).click();
  await expect(row).toContainText('revoked');
  const after = await fetch(`${BASE_URL()}/api/v1/nodes`, { headers: { authorization: `ApiKey ${raw}` } });
  expect(after.status).toBe(401);

  // Signing out revokes the session: a reload stays signed out.
  await page.getByRole('button', { name: 'Sign out' }).click();
  await expect(page.getByLabel('Email address')).toBeVisible();
  await page.reload();
  await expect(page.getByLabel('Email address')).toBeVisible();
});
