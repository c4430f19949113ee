/**
 * What clients need to capture a web address: its kind (`contentTypeOfUrl`, the rule of
 * @kg/bookmarks, which the server's imports use too) and whether it is one the API accepts.
 * No Node.js API: the dashboard and the extension bundle this file (`@kg/sdk/capture-kinds`).
 */
export { contentTypeOfUrl, type UrlContentType } from '@kg/bookmarks/url';

/** An http(s) address as the API accepts one, or null. */
export function webAddress(text: string): string | null {
  const candidate = text.trim();
  if (!/^https?:\/\/\S+$/i.test(candidate) || candidate.length > 2048) return null;
  try {
    return new URL(candidate).protocol.startsWith('http') ? candidate : null;
  } catch {
    return null;
  }
}
