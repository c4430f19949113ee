/**
 * What a web address most likely holds, from its host, as a capture's `content_type` (the
 * server's pipeline reads the page either way). Shared by every client that captures a URL:
 * the CLI, the bookmark importer and the dashboard's share target. No Node.js API: the
 * dashboard bundles this file (`@kg/sdk/capture-kinds`).
 */
export type UrlContentType = 'tweet' | 'video' | 'repo' | 'article';

const HOSTS: Array<[UrlContentType, string[]]> = [
  ['tweet', ['twitter.com', 'x.com', 'mobile.twitter.com']],
  ['video', ['youtube.com', 'youtu.be', 'm.youtube.com', 'vimeo.com']],
  ['repo', ['github.com', 'gitlab.com', 'codeberg.org', 'bitbucket.org']],
];

export function contentTypeOfUrl(url: string): UrlContentType {
  let host: string;
  try {
    host = new URL(url).hostname.replace(/^www\./, '');
  } catch {
    return 'article';
  }
  return HOSTS.find(([, hosts]) => hosts.includes(host))?.[0] ?? 'article';
}

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
