import { ApiError, AuthRequiredError, ok, type KgClient } from '@kg/sdk';
import { contentTypeOfUrl } from '@kg/sdk/capture-kinds';
import { MAX_KEPT, type Counts, type Failed, type StateFile } from './state.ts';
import { judgeUrl, place, type Bookmark, type Entry, type SkipReason } from '@kg/bookmarks';

export type Outcome =
  | { kind: 'imported'; captureId: string }
  | { kind: 'duplicate'; captureId: string }
  | { kind: 'skipped'; reason: SkipReason }
  | { kind: 'failed'; error: string };

export interface ImportProgress {
  /** An entry was handled (`index` counts from 1, in the file's order). */
  entry(index: number, entry: Entry, outcome: Outcome, counts: Counts): void;
  /** The API asked to slow down: waiting this many seconds. */
  waiting(seconds: number): void;
  /** An earlier run of this import stopped after `position` entries: those are passed over. */
  resuming?(position: number): void;
}

export interface ImportSummary extends Counts {
  entries: number;
  resumed_from: number;
  failures: Failed[];
}

/** Stops the import; the state keeps what was confirmed, so running again resumes. */
export class ImportStopped extends Error {}

const MAX_TITLE = 500;
const MAX_WHY = 5000;
/** How long to wait on a 429 that names no Retry-After, and how many 429s in a row are borne. */
const DEFAULT_RETRY_SECONDS = 5;
const MAX_RATE_LIMITED_TRIES = 50;

/** C0 controls but tab and newline, and DEL: nothing a title or note needs (the API refuses NUL). */
const CONTROL = new RegExp('[\\u0000-\\u0008\\u000B\\u000C\\u000E-\\u001F\\u007F]', 'g');
/** Text as the API can store it: no control characters, no lone surrogates (a JSON `"\\ud800"`). */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
/** `String.prototype.toWellFormed` (ES2024, beyond the project's lib): lone surrogates become U+FFFD. */
const wellFormed = (s: string): string => s.replace(LONE_SURROGATE, '\uFFFD');
export const cleanText = (s: string): string => wellFormed(s).replace(CONTROL, '');

/**
 * What the capture's `why` keeps of the bookmark, since captures have no tag or date field:
 * `Imported bookmark · folder: Dev / JS · tags: Dev, JS, a · added 2019-03-04T10:00:00.000Z`, then its note.
 */
export function bookmarkWhy(b: Bookmark): string {
  const parts = ['Imported bookmark'];
  if (b.folders.length) parts.push(`folder: ${b.folders.join(' / ')}`);
  const tags = bookmarkTags(b);
  if (tags.length) parts.push(`tags: ${tags.join(', ')}`);
  if (b.addedAt) parts.push(`added ${b.addedAt.toISOString()}`);
  const head = cleanText(parts.join(' · '));
  const note = b.note ? cleanText(b.note) : '';
  const why = note ? `${head}\n\n${note}` : head;
  return why.length > MAX_WHY ? wellFormed(why.slice(0, MAX_WHY - 1)) + '…' : why;
}

/** The tags a bookmark's folders and own tags give: folder names then tags, without repeats. */
export const bookmarkTags = (b: Bookmark): string[] => [...new Set([...b.folders, ...b.tags])];

const errorText = (e: unknown) =>
  e instanceof ApiError
    ? [e.title, e.detail !== e.title ? e.detail : undefined, ...e.errors.map((f) => `${f.path}: ${f.message}`)]
        .filter(Boolean)
        .join(' — ')
    : e instanceof Error
      ? e.message
      : String(e);

const sleep = (seconds: number) => new Promise((r) => setTimeout(r, seconds * 1000));

/**
 * Imports the entries of a bookmark file as URL captures through the public API, in the
 * file's order: each bookmark is checked (`GET /captures/check`: already captured → a
 * duplicate) then created (`POST /captures`, source `cli`). A 429 is waited out (Retry-After);
 * a refusal of one bookmark (4xx) is a failure with its place, and the import goes on; a server
 * error or a lost connection stops it, and the state file lets the next run resume after the
 * last entry confirmed.
 */
export async function importBookmarks(
  kg: KgClient,
  entries: AsyncIterable<Entry>,
  stateFile: StateFile,
  progress?: ImportProgress,
): Promise<ImportSummary> {
  const state = await stateFile.load();
  const resumedFrom = state.position;
  if (resumedFrom) progress?.resuming?.(resumedFrom);
  const { counts } = state;
  const fail = (f: Failed) => {
    counts.failed++;
    if (state.failures.length < MAX_KEPT) state.failures.push(f);
  };
  let index = 0;
  for await (const entry of entries) {
    index++;
    if (index <= state.position) continue;
    let outcome: Outcome;
    if (entry.kind === 'problem') {
      outcome = { kind: 'failed', error: entry.message };
      fail({ place: place(entry), ...(entry.url ? { url: entry.url } : {}), error: entry.message });
    } else {
      outcome = await importOne(kg, entry, progress);
      if (outcome.kind === 'imported') counts.imported++;
      else if (outcome.kind === 'duplicate') counts.duplicates++;
      else if (outcome.kind === 'skipped') counts.skipped[outcome.reason] = (counts.skipped[outcome.reason] ?? 0) + 1;
      else fail({ place: place(entry), url: entry.url, error: outcome.error });
    }
    state.position = index;
    await stateFile.save(state);
    progress?.entry(index, entry, outcome, counts);
  }
  await stateFile.clear();
  return { ...counts, entries: index, resumed_from: resumedFrom, failures: state.failures };
}

async function importOne(kg: KgClient, b: Bookmark, progress?: ImportProgress): Promise<Outcome> {
  const judged = judgeUrl(b.url);
  if ('skip' in judged) return { kind: 'skipped', reason: judged.skip };
  const { url } = judged;
  try {
    const found = await patiently(progress, async () => {
      const res = await kg.api.GET('/captures/check', { params: { query: { url } } });
      if (res.response.status === 404) return undefined;
      return ok(Promise.resolve(res));
    });
    if (found) return { kind: 'duplicate', captureId: found.capture_id };
    const title = wellFormed((cleanText(b.title).replace(/\s+/g, ' ').trim() || url).slice(0, MAX_TITLE));
    const capture = await patiently(progress, () =>
      ok(
        kg.api.POST('/captures', {
          body: { title, url, content_type: contentTypeOfUrl(url), source: 'cli', why: bookmarkWhy(b) },
        }),
      ),
    );
    return { kind: 'imported', captureId: capture.id };
  } catch (e) {
    // The bookmark itself was refused: say why and go on. The credential refused or ended:
    // stop as every command does (exit 3). Anything else stops the import, to be resumed.
    if (e instanceof ApiError && e.status >= 400 && e.status < 500 && ![401, 403, 429].includes(e.status))
      return { kind: 'failed', error: errorText(e) };
    if (e instanceof AuthRequiredError || (e instanceof ApiError && (e.status === 401 || e.status === 403))) throw e;
    throw new ImportStopped(errorText(e), { cause: e });
  }
}

/** Runs a call, waiting out 429s as Retry-After says. */
async function patiently<T>(progress: ImportProgress | undefined, call: () => Promise<T>): Promise<T> {
  for (let tries = 1; ; tries++) {
    try {
      return await call();
    } catch (e) {
      if (!(e instanceof ApiError && e.status === 429) || tries >= MAX_RATE_LIMITED_TRIES) throw e;
      const seconds = e.retryAfterSeconds ?? DEFAULT_RETRY_SECONDS;
      progress?.waiting(seconds);
      await sleep(seconds);
    }
  }
}
