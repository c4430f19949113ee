import { apiSession, expect, expectAccessible, nav, screenshot, signIn, test } from './support/fixtures';

test('health: the tenant’s counts', async ({ page }) => {
  const email = 'health@example.com';
  const { call } = await apiSession(email);
  await call('POST', '/nodes', { title: 'One' });
  await call('POST', '/nodes', { title: 'Two' });
  await signIn(page, email);
  await nav(page, 'Health').click();
  await expect(page.getByTestId('health-total_nodes')).toHaveText('2');
  await expect(page.getByTestId('health-validated_nodes')).toHaveText('0');
  await expectAccessible(page);
  await screenshot(page, 'health');
});
