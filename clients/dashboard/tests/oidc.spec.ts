import { expect, expectAccessible, nav, test } from './support/fixtures';

test('sign-in with the OpenID provider: PKCE through the gateway, back on /auth/callback, code cleared', async ({
  page,
}) => {
  const issuer = new URL(process.env['KG_OIDC_ISSUER']!);
  await page.goto(`${process.env['KG_BASE_URL']}/`);
  const start = page.getByRole('button', { name: `Continue with ${issuer.host}` });
  await expect(start).toBeVisible();
  await expectAccessible(page);
  await start.click();
  await expect(nav(page, 'Graph')).toBeVisible();
  const url = new URL(page.url());
  expect(url.pathname).toBe('/');
  expect(url.search).toBe('');
  expect(await page.evaluate(() => sessionStorage.length + localStorage.length)).toBe(0);
  // The session survives a reload through the refresh cookie.
  await page.reload();
  await expect(nav(page, 'Graph')).toBeVisible();
});
