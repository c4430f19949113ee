/** One bookmark as a file holds it, before its URL is judged. */
export interface Bookmark {
  kind: 'bookmark';
  /** Where it is: the line of its tag or row (1-based); for JSON, the line is not known. */
  line?: number;
  /** For JSON: its position in the `bookmarks` array (0-based). */
  index?: number;
  url: string;
  title: string;
  /** Folder names from the outermost in, then the bookmark's own tags. */
  folders: string[];
  tags: string[];
  /** When it was bookmarked (ADD_DATE, time_added, createdAt), when the file says. */
  addedAt?: Date;
  /** A description or note the file keeps with it. */
  note?: string;
}

/** An entry the parser could not read: reported with its place, never imported. */
export interface Problem {
  kind: 'problem';
  line?: number;
  index?: number;
  message: string;
  url?: string;
}

export type Entry = Bookmark | Problem;

/** A file's content as it arrives: a read stream, or chunks in memory (tests). */
export type Chunks = AsyncIterable<string | Buffer> | Iterable<string | Buffer>;

export type BookmarkFormat = 'html' | 'pocket-csv' | 'karakeep-json';

/** Where an entry is, for people: "line 12", "bookmarks[3]". */
export const place = (e: { line?: number; index?: number }): string =>
  e.line !== undefined ? `line ${e.line}` : e.index !== undefined ? `bookmarks[${e.index}]` : 'end of file';

/** A date from Unix seconds (as ADD_DATE, time_added and createdAt hold them), or undefined. */
export function fromUnixSeconds(raw: unknown): Date | undefined {
  const n =
    typeof raw === 'number' ? raw : typeof raw === 'string' && /^\d{1,16}$/.test(raw.trim()) ? Number(raw) : NaN;
  if (!Number.isFinite(n) || n <= 0) return undefined;
  // Some tools write microseconds (Chrome's internal format) or milliseconds: scale them down.
  const seconds = n > 1e14 ? n / 1e6 : n > 1e11 ? n / 1e3 : n;
  const date = new Date(seconds * 1000);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

/** Tags from a comma-separated attribute or a Pocket `a|b` cell: trimmed, empty ones dropped, no repeats. */
export function splitTags(raw: string | undefined, separator: RegExp = /,/): string[] {
  if (!raw) return [];
  return [
    ...new Set(
      raw
        .split(separator)
        .map((t) => t.trim())
        .filter(Boolean),
    ),
  ];
}
