/** Why a bookmark's address is not imported. */
export type SkipReason = 'unsupported_scheme' | 'invalid_url' | 'url_too_long';

/** The same rule as the API's (CreateCaptureInput.url): http or https, a host, no whitespace, 2048 at most. */
const HTTP_URL = /^https?:\/\/[^\s/?#]+[^\s]*$/;
const MAX_URL = 2048;

/**
 * The address to capture, or why not. Only http(s) pages are captured: `javascript:`, `data:`,
 * `file:`, `place:` (Firefox smart folders), `chrome:` and the like are skipped. An address the
 * API would refuse as written (upper-case scheme, spaces) is sent in its normalised form; the
 * same form every run, so the duplicate check finds it again.
 */
export function judgeUrl(raw: string): { url: string } | { skip: SkipReason } {
  const value = raw.trim();
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    return {
      skip: /^[a-z][a-z0-9+.-]*:/i.test(value) && !/^https?:/i.test(value) ? 'unsupported_scheme' : 'invalid_url',
    };
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return { skip: 'unsupported_scheme' };
  if (!parsed.hostname) return { skip: 'invalid_url' };
  const url = HTTP_URL.test(value) ? value : parsed.href;
  if (!HTTP_URL.test(url)) return { skip: 'invalid_url' };
  if (url.length > MAX_URL) return { skip: 'url_too_long' };
  return { url };
}

/** What a web address most likely holds, as a capture's `content_type` (the pipeline reads the page either way). */
export type UrlContentType = 'tweet' | 'video' | 'repo' | 'article';

const KINDS: Array<[UrlContentType, string[]]> = [
  ['tweet', ['twitter.com', 'x.com', 'mobile.twitter.com']],
  ['video', ['youtube.com', 'youtu.be', 'm.youtube.com', 'vimeo.com']],
  ['repo', ['github.com', 'gitlab.com', 'codeberg.org', 'bitbucket.org']],
];

/**
 * The kind of a web address, from its host: the one rule of every way in (the CLI, the
 * dashboard's share target, the extension through @kg/sdk/capture-kinds, and bookmark imports).
 * No Node.js API: the dashboard and the extension bundle this file.
 */
export function contentTypeOfUrl(url: string): UrlContentType {
  let host: string;
  try {
    host = new URL(url).hostname.replace(/^www\./, '');
  } catch {
    return 'article';
  }
  return KINDS.find(([, hosts]) => hosts.includes(host))?.[0] ?? 'article';
}
