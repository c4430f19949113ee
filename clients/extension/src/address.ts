import { capturable } from './page';

/**
 * The address a capture of this page is saved under, and so the one `GET /captures/check`
 * is asked about (the server keeps a URL exactly as sent and compares it exactly): the
 * tab's address without a user name or password (`https://user:secret@host/` is saved and
 * checked as `https://host/`: a password never goes to the server, and the page's own
 * `location.href`, which a page save sends, has none either), the fragment kept (a save
 * keeps it: `#/inbox` routes an app). Null for what is never captured: the browser's own
 * pages (chrome://, about:, the extension's), files, an address it cannot see (no `tabs`
 * permission and no activeTab grant), or one longer than the API takes.
 */
export function pageAddress(url: string | undefined): string | null {
  if (!capturable(url)) return null;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return null;
  }
  if (!parsed.username && !parsed.password) return url;
  parsed.username = '';
  parsed.password = '';
  return capturable(parsed.href) ? parsed.href : null;
}
