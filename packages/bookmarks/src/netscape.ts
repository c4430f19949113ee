import { StringDecoder } from 'node:string_decoder';
import { Parser } from 'htmlparser2';
import { LineCounter } from './line-counter.ts';
import { fromUnixSeconds, splitTags, type Chunks, type Entry } from './types.ts';

/** Text kept of a title, folder name or note while reading (the API keeps 500 and 5,000). */
const MAX_TEXT = 10_000;
/** A tag (its attributes) longer than this stops the reading: htmlparser2 holds a tag whole. */
const MAX_TAG = 4 * 1024 * 1024;
const add = (to: { text: string }, text: string) => {
  if (to.text.length < MAX_TEXT) to.text += text.slice(0, MAX_TEXT - to.text.length);
};

interface OpenAnchor {
  line: number;
  href: string | undefined;
  attrs: Record<string, string>;
  folders: string[];
  text: string;
}

/**
 * Reads a Netscape bookmark file (what browsers, Raindrop, Linkwarden, Karakeep and Pocket
 * export) with htmlparser2, chunk by chunk: memory stays bounded by the chunk size whatever the
 * file's size. `<H3>` folders (nested `<DL>`) become folder names; `TAGS`/`tags` attributes
 * become tags; `ADD_DATE`/`time_added` the date; a `<DD>` after a bookmark its note. Entities are
 * decoded. An anchor without an address, or one the file ends inside, is a problem with its line.
 */
export async function* parseNetscape(input: Chunks): AsyncGenerator<Entry> {
  const queue: Entry[] = [];
  const lines = new LineCounter();
  const folders: string[] = [];
  /** One entry per open <DL>: whether it opened a folder (pushed a name). */
  const lists: boolean[] = [];
  let heading: { text: string } | undefined;
  let pendingFolder: string | undefined;
  let anchor: OpenAnchor | undefined;
  /** The last bookmark, until something else than its <DD> note follows. */
  let last: (Entry & { kind: 'bookmark' }) | undefined;
  let dd: { text: string } | undefined;

  const flush = () => {
    if (last) queue.push(last);
    last = undefined;
  };
  const finishAnchor = (truncated: boolean) => {
    const a = anchor!;
    anchor = undefined;
    if (truncated) {
      queue.push({
        kind: 'problem',
        line: a.line,
        message: 'the file ends inside this bookmark (truncated)',
        url: a.href,
      });
      return;
    }
    const href = a.href?.trim();
    if (!href) {
      queue.push({ kind: 'problem', line: a.line, message: 'a link without an address (no HREF)' });
      return;
    }
    const addedAt = fromUnixSeconds(a.attrs['add_date'] ?? a.attrs['time_added']);
    last = {
      kind: 'bookmark',
      line: a.line,
      url: href,
      title: a.text.replace(/\s+/g, ' ').trim(),
      folders: [...a.folders],
      tags: splitTags(a.attrs['tags']),
      ...(addedAt ? { addedAt } : {}),
    };
  };

  const parser = new Parser(
    {
      onopentag(name, attrs) {
        if (name === 'a') {
          flush();
          if (anchor) finishAnchor(false);
          anchor = {
            line: lines.lineAt(parser.startIndex),
            href: attrs['href'],
            attrs,
            folders: [...folders],
            text: '',
          };
        } else if (name === 'h3') {
          flush();
          heading = { text: '' };
        } else if (name === 'dl') {
          flush();
          lists.push(pendingFolder !== undefined);
          if (pendingFolder !== undefined) folders.push(pendingFolder);
          pendingFolder = undefined;
        } else if (name === 'dd') {
          if (last) dd = { text: '' };
        } else if (name === 'dt') {
          flush();
        }
      },
      ontext(text) {
        if (anchor) add(anchor, text);
        else if (heading) add(heading, text);
        else if (dd) add(dd, text);
      },
      onclosetag(name, implied) {
        if (name === 'a') {
          // An implied close of an anchor at the end: the file stops inside it (or inside its tag,
          // when no anchor was opened: the tag's attributes were cut).
          if (anchor) finishAnchor(implied && ending);
          else if (implied && ending)
            queue.push({
              kind: 'problem',
              line: lines.lineAt(parser.startIndex),
              message: 'the file ends inside a tag (truncated)',
            });
        } else if (name === 'h3' && heading) {
          pendingFolder = heading.text.replace(/\s+/g, ' ').trim() || 'Untitled folder';
          heading = undefined;
        } else if (name === 'dd' && dd) {
          const note = dd.text.replace(/\s+/g, ' ').trim();
          if (last && note) last.note = note;
          dd = undefined;
          flush();
        } else if (name === 'dl') {
          flush();
          if (lists.pop()) folders.pop();
        }
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );

  let ending = false;
  const decoder = new StringDecoder('utf8');
  /** A tag still open at the end of the chunks so far: where it began and how long it is. */
  let openTag: { line: number; length: number } | undefined;
  let read = 0;
  for await (const raw of input) {
    const chunk = typeof raw === 'string' ? raw : decoder.write(raw);
    lines.push(chunk);
    parser.write(chunk);
    yield* queue.splice(0);
    const lt = chunk.lastIndexOf('<');
    const gt = chunk.lastIndexOf('>');
    if (lt > gt) openTag = { line: lines.lineAt(read + lt), length: chunk.length - lt };
    else if (gt > lt) openTag = undefined;
    else if (openTag) openTag.length += chunk.length;
    read += chunk.length;
    if (openTag && openTag.length > MAX_TAG) {
      flush();
      yield* queue.splice(0);
      yield {
        kind: 'problem',
        line: openTag.line,
        message: 'a tag longer than 4 MiB (the file is not a bookmark export); the rest was not read',
      };
      return;
    }
  }
  ending = true;
  const rest = decoder.end();
  lines.push(rest);
  parser.write(rest);
  parser.end();
  flush();
  yield* queue.splice(0);
}
