import type { Page } from '@playwright/test';
import { BASE_URL, apiSession, expect, expectAccessible, nav, signIn, test } from './support/fixtures';

type Capture = {
  id: string;
  title: string;
  url: string | null;
  content_type: string;
  why: string | null;
  selected_text: string | null;
};

/**
 * What a phone's share sheet does with the installed app: a multipart form POST to the
 * manifest's share_target action. Sent from the page, so the service worker receives it.
 */
async function share(
  page: Page,
  fields: Record<string, string>,
  file?: { name: string; type: string; bytes: number | string },
) {
  await page.evaluate(
    ({ fields, file }) => {
      const form = document.createElement('form');
      form.method = 'POST';
      form.action = '/share';
      form.enctype = 'multipart/form-data';
      for (const [name, value] of Object.entries(fields)) {
        const input = document.createElement('input');
        input.type = 'hidden';
        input.name = name;
        input.value = value;
        form.append(input);
      }
      if (file) {
        const input = document.createElement('input');
        input.type = 'file';
        input.name = 'file';
        const data = new DataTransfer();
        const content = typeof file.bytes === 'number' ? new Uint8Array(file.bytes).fill(65) : file.bytes;
        data.items.add(new File([content], file.name, { type: file.type }));
        input.files = data.files;
        form.append(input);
      }
      document.body.append(form);
      form.submit();
    },
    { fields, file },
  );
  await page.waitForURL(/\/share\?/);
}

test('share target: the installable app receives shares, nothing is saved before the person says so', async ({
  page,
}) => {
  await signIn(page, 'share@example.com');
  const kg = await apiSession('share@example.com');
  const captures = async () => (await kg.call<{ data: Capture[] }>('GET', '/captures?per_page=100')).data;

  // Installable: a manifest with a share target and icons that load; a service worker controls the page.
  const manifest = await page.evaluate(async () => {
    const link = document.querySelector<HTMLLinkElement>('link[rel="manifest"]')!;
    return (await fetch(link.href)).json() as Promise<{
      share_target: unknown;
      icons: { src: string; type: string }[];
    }>;
  });
  expect(manifest.share_target).toMatchObject({ action: '/share', method: 'POST', enctype: 'multipart/form-data' });
  for (const icon of manifest.icons) {
    const res = await page.request.get(`${BASE_URL()}${icon.src}`);
    expect(res.status(), icon.src).toBe(200);
    expect(res.headers()['content-type'], icon.src).toContain(icon.type);
  }
  // The worker becomes active (installed: the shell cached), then claims the open page. A CI run
  // at full load once saw it active but the page (navigated meanwhile) never claimed in 30 s: a
  // page loaded once the worker is active is controlled in any case, as every share's is.
  await page.evaluate(() => navigator.serviceWorker.ready.then(() => undefined));
  if (!(await page.evaluate(() => navigator.serviceWorker.controller !== null))) await page.reload();
  await expect
    .poll(() => page.evaluate(() => navigator.serviceWorker.controller !== null), { timeout: 30_000 })
    .toBe(true);

  // A page shared with its text: the review page, filled in; nothing created yet.
  await share(page, {
    title: 'The spacing effect <img src=x onerror=alert(1)>',
    text: 'Reviews spread over days beat one long session.',
    url: 'https://example.com/spacing',
  });
  await expect(page.getByRole('heading', { name: 'Review before saving' })).toBeVisible();
  await expect(page.getByLabel('Web address')).toHaveValue('https://example.com/spacing');
  await expect(page.getByLabel('Title (optional)')).toHaveValue('The spacing effect <img src=x onerror=alert(1)>');
  await expect(page.getByLabel('Quote (optional)')).toHaveValue('Reviews spread over days beat one long session.');
  await expectAccessible(page);
  expect(await captures()).toEqual([]);

  // It waits in the inbox across navigation, listed on /share.
  await nav(page, 'Captures').click();
  await page.goto(`${BASE_URL()}/share`);
  await expect(page.getByTestId('pending-shares').getByRole('listitem')).toHaveCount(1);
  await page.getByTestId('pending-shares').getByRole('link').click();
  await page.getByLabel('Why it matters (optional)').fill('for the study plan');
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  await expect(page.getByRole('heading', { name: 'The spacing effect <img src=x onerror=alert(1)>' })).toBeVisible();
  const [saved] = await captures();
  expect(saved).toMatchObject({
    title: 'The spacing effect <img src=x onerror=alert(1)>',
    url: 'https://example.com/spacing',
    content_type: 'article',
    why: 'for the study plan',
    selected_text: 'Reviews spread over days beat one long session.',
  });
  await page.goto(`${BASE_URL()}/share`);
  await expect(page.getByText('Nothing shared is waiting.')).toBeVisible();

  // Android puts a shared link in `text`: it becomes a URL capture of the right kind.
  await share(page, { title: 'kg repo', text: 'https://github.com/example/kg' });
  await expect(page.getByLabel('Web address')).toHaveValue('https://github.com/example/kg');
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  await expect(page.getByRole('heading', { name: 'kg repo' })).toBeVisible();
  expect((await captures()).find((c) => c.title === 'kg repo')).toMatchObject({
    content_type: 'repo',
    selected_text: null,
  });

  // A file: uploaded when saved, processed by the pipeline.
  await share(
    page,
    { title: '' },
    {
      name: 'retrieval.md',
      type: 'text/markdown',
      bytes: '# Retrieval practice\n\nTesting yourself beats rereading.\n',
    },
  );
  await expect(page.getByTestId('shared-file')).toContainText('retrieval.md');
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  await expect(page.getByTestId('detail-status')).toHaveText('processed', { timeout: 60_000 });

  // Hostile and odd shares: a file over the upload limit is refused by the inbox, and a
  // share that is discarded leaves nothing behind.
  await share(page, {}, { name: 'huge.pdf', type: 'application/pdf', bytes: 26 * 1024 * 1024 });
  await expect(page.getByRole('alert')).toContainText('larger than the 25 MiB');
  await expect(page.getByRole('button', { name: 'Save', exact: true })).toBeDisabled();
  await page.getByRole('button', { name: 'Discard', exact: true }).click();
  await expect(page.getByText('Nothing shared is waiting.')).toBeVisible();
  await page.goto(`${BASE_URL()}/share?id=00000000-0000-4000-8000-000000000000`);
  await expect(page.getByRole('alert')).toContainText('no longer kept');
  expect((await captures()).length).toBe(3);

  // Without the service worker (a share before the app was ever opened) the server keeps nothing.
  const bare = await page.request.post(`${BASE_URL()}/share`, {
    multipart: { title: 'x', url: 'https://example.com/x' },
    maxRedirects: 0,
  });
  expect(bare.status()).toBe(303);
  expect(bare.headers()['location']).toBe('/share?unsupported=1');
  expect((await captures()).length).toBe(3);

  // The shell opens offline (the app, not the browser's error page).
  await page.context().setOffline(true);
  await page.goto(`${BASE_URL()}/nodes`);
  await expect(page).toHaveTitle('Knowledge Graph');
  await expect(page.locator('#root')).not.toBeEmpty();
  await page.context().setOffline(false);
});
