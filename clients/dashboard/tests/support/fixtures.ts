import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import { expect, test as base, type Page } from '@playwright/test';

export const BASE_URL = () => process.env['KG_BASE_URL']!;
const SCREENS = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../../../../browser-results/screens');

/** The newest mail to `email` in the embedded outbox, waited for. */
export async function magicLinkFor(email: string, after = 0): Promise<string> {
  const dir = process.env['KG_OUTBOX_DIR']!;
  const deadline = Date.now() + 15_000;
  for (;;) {
    const files = (() => {
      try {
        return readdirSync(dir).filter((f) => f.endsWith('.json'));
      } catch {
        return [];
      }
    })()
      .map((f) => path.join(dir, f))
      .filter((f) => statSync(f).mtimeMs >= after)
      .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs);
    for (const file of files) {
      const mail = JSON.parse(readFileSync(file, 'utf8')) as { to: string; link?: string; text?: string };
      const link = mail.link ?? /https?:\/\/\S+#token=\S+/.exec(mail.text ?? '')?.[0];
      if (mail.to === email && link) return link;
    }
    if (Date.now() > deadline) throw new Error(`no sign-in mail for ${email} in ${dir}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Signs in through the form and the mailed link, as a person does. */
export async function signIn(page: Page, email: string) {
  const since = Date.now() - 1000;
  await page.goto(`${BASE_URL()}/`);
  await page.getByLabel('Email address').fill(email);
  await page.getByRole('button', { name: 'Email me a sign-in link' }).click();
  await expect(page.getByRole('heading', { name: 'Check your mail' })).toBeVisible();
  const link = await magicLinkFor(email, since);
  await page.goto(link);
  await expect(page.getByRole('navigation', { name: 'Main' })).toBeVisible();
  expect(new URL(page.url()).hash).toBe('');
}

/** axe-core on the page as it is: no serious or critical violation. */
export async function expectAccessible(page: Page) {
  const results = await new AxeBuilder({ page }).exclude('canvas').analyze();
  const bad = results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  expect(bad.map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`)).toEqual([]);
}

export async function screenshot(page: Page, name: string) {
  await page.screenshot({ path: path.join(SCREENS, `${name}.png`), fullPage: false });
}

export const test = base;
export { expect };
