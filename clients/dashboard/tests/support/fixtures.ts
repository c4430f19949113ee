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
  // The token left the address; nothing is kept in web storage; the refresh cookie is not readable.
  const kept = await page.evaluate(() => ({
    storage: localStorage.length + sessionStorage.length,
    cookies: document.cookie,
  }));
  expect(kept.storage).toBe(0);
  expect(kept.cookies).not.toContain('kg_refresh');
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

/**
 * Every page of a test may talk to the server's own origin only (and the OpenID provider during
 * its sign-in): no font, script or image from anywhere else (the dashboard bundles everything).
 */
export const test = base.extend({
  page: async ({ page }, use) => {
    const foreign: string[] = [];
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(`${error.message}\n${error.stack ?? ''}`));
    page.on('request', (request) => {
      const url = new URL(request.url());
      // The OpenID provider's own pages are the one other origin a sign-in may visit.
      const allowed = [new URL(BASE_URL()).origin, process.env['KG_OIDC_ISSUER']];
      if (url.protocol !== 'data:' && url.protocol !== 'blob:' && !allowed.includes(url.origin))
        foreign.push(request.url());
    });
    await use(page);
    expect(foreign).toEqual([]);
    expect(errors).toEqual([]);
  },
});
export { expect };

/** A bearer session for `email` through the REST API (to prepare data quickly), like the README's curl walkthrough. */
export async function apiSession(email: string) {
  const base = `${BASE_URL()}/api/v1`;
  const since = Date.now() - 1000;
  const asked = await fetch(`${base}/auth/magic-link`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email }),
  });
  expect(asked.status).toBe(202);
  const token = decodeURIComponent(new URL(await magicLinkFor(email, since)).hash.replace(/^#token=/, ''));
  const verified = await fetch(`${base}/auth/magic-link/verify`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ token }),
  });
  expect(verified.status).toBe(200);
  const { access_token } = (await verified.json()) as { access_token: string };
  const call = async <T = unknown>(method: string, path: string, body?: unknown): Promise<T> => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${access_token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
    return (res.status === 204 ? undefined : await res.json()) as T;
  };
  return { call, accessToken: access_token };
}

/** A link of the main navigation. */
export const nav = (page: Page, name: string) =>
  page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name, exact: true });
