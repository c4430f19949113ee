import { contentTypeOfUrl, judgeUrl, type Bookmark } from '@kg/bookmarks';
import type { CaptureImportMetadata, CreateCaptureInput } from '@kg/contracts';

type CaptureSource = CreateCaptureInput['source'];

const MAX_TITLE = 500;
const MAX_NOTE = 5000;
/** C0 controls but tab and newline, and DEL: nothing a title or note needs (PostgreSQL refuses NUL). */
const CONTROL = new RegExp('[\\u0000-\\u0008\\u000B\\u000C\\u000E-\\u001F\\u007F]', 'g');
/** Lone surrogates (a JSON `"\ud800"`) become U+FFFD, so the text can be stored and served as UTF-8. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
const clean = (s: string): string => s.replace(LONE_SURROGATE, '\uFFFD').replace(CONTROL, '');
/** Cuts to `max` characters without leaving half a surrogate pair. */
const cut = (s: string, max: number): string => (s.length > max ? clean(s.slice(0, max)) : s);

/**
 * The forms of an address a duplicate is looked up by: as the capture keeps it, and the
 * WHATWG-normalised form (`HTTPS://Example.com/a b` → `https://example.com/a%20b`).
 */
export function urlForms(url: string): string[] {
  const normalised = new URL(url).href;
  return normalised === url ? [url] : [url, normalised];
}

export type Judged =
  | {
      kind: 'capture';
      url: string;
      forms: string[];
      input: CreateCaptureInput;
      metadata: { import: CaptureImportMetadata };
    }
  | { kind: 'skipped'; reason: string };

/**
 * A bookmark as the capture it becomes, or why not: only http(s) pages are captured (the
 * CLI's rule, judgeUrl); the title is the bookmark's (its URL when it has none), cut to 500;
 * `metadata.import` keeps its folders, tags, date and note for the pipeline.
 */
export function judgeBookmark(b: Bookmark, opts: { importId: string; para: boolean; source: CaptureSource }): Judged {
  const judged = judgeUrl(b.url);
  if ('skip' in judged) return { kind: 'skipped', reason: judged.skip };
  const { url } = judged;
  const title = cut(clean(b.title).replace(/\s+/g, ' ').trim(), MAX_TITLE) || url.slice(0, MAX_TITLE);
  const folder = b.folders.map((f) => clean(f).trim()).filter(Boolean);
  const tags = [...new Set([...folder, ...b.tags.map((t) => clean(t).trim())].filter(Boolean))];
  const note = b.note ? cut(clean(b.note).trim(), MAX_NOTE) : '';
  return {
    kind: 'capture',
    url,
    forms: urlForms(url),
    input: { title, url, content_type: contentTypeOfUrl(url), source: opts.source },
    metadata: {
      import: {
        import_id: opts.importId,
        folder,
        tags,
        added_at: b.addedAt ? b.addedAt.toISOString() : null,
        note: note || null,
        para: opts.para,
      },
    },
  };
}
