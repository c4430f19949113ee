import { PassThrough, Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import parser from 'stream-json/parser.js';
import pick from 'stream-json/filters/pick.js';
import streamArray from 'stream-json/streamers/stream-array.js';
import verifier from 'stream-json/utils/verifier.js';
import { z } from 'zod';
import { fromUnixSeconds, type Chunks, type Entry } from './types.ts';

/** A bookmark of Karakeep's export, leniently: every field may be missing or null. */
const KarakeepBookmark = z.object({
  createdAt: z.union([z.number(), z.string()]).nullish(),
  title: z.string().nullish(),
  tags: z.array(z.unknown()).nullish(),
  note: z.string().nullish(),
  content: z
    .object({ type: z.string().nullish(), url: z.string().nullish(), text: z.string().nullish() })
    .passthrough()
    .nullish(),
  url: z.string().nullish(),
});

/**
 * Reads Karakeep's JSON export (`{"bookmarks": [{createdAt, title, tags, content: {type, url},
 * note}]}`) with stream-json: only one bookmark is held at a time, whatever the file's size.
 * A bookmark with missing fields imports with what it has (the URL is the one field it needs);
 * text notes (no URL) are problems named by their position `bookmarks[i]`. The same bytes go
 * through stream-json's verifier, so a file that is not JSON (or is cut short) is reported
 * with the line and column where it breaks, after the bookmarks before it.
 */
export async function* parseKarakeepJson(input: Chunks): AsyncGenerator<Entry> {
  const check = verifier.asStream();
  let broken: { line: number; pos: number; message: string } | undefined;
  check.on('error', (e: Error & { line?: number; pos?: number }) => {
    broken ??= { line: e.line ?? 0, pos: e.pos ?? 0, message: e.message };
  });
  check.resume();
  const tee = new PassThrough();
  const tokens = parser.asStream();
  const picked = pick.asStream({ filter: 'bookmarks' });
  const guard = itemGuard();
  const items = tee.pipe(tokens).pipe(picked).pipe(guard.stream).pipe(streamArray.asStream());
  // A parser error ends the item stream; the verifier says where.
  const feeding = pipeline(
    Readable.from(input),
    async function* (source: AsyncIterable<Buffer | string>) {
      for await (const chunk of source) {
        if (!broken && !check.write(chunk)) await new Promise((r) => check.once('drain', r).once('error', r));
        yield chunk;
      }
      check.end();
    },
    tee,
  ).catch(() => undefined);
  let failed: Error | undefined;
  for (const stage of [tokens, picked, guard.stream])
    stage.on('error', (e: Error) => {
      failed ??= e;
      items.destroy(e);
    });
  items.on('error', (e: Error) => (failed ??= e));
  try {
    for await (const { key, value } of items as AsyncIterable<{ key: number; value: unknown }>)
      yield toEntry(key, value);
  } catch (e) {
    failed ??= e as Error;
  }
  await feeding;
  if (guard.tooBig !== undefined) {
    const i = guard.tooBig;
    yield {
      kind: 'problem',
      index: i,
      message: `bookmarks[${i}] is larger than 4 MiB (not a bookmark export); the rest was not read`,
    };
    return;
  }
  if (failed || broken) {
    // Wait for the verifier to reach the same place (it runs on the same chunks).
    await new Promise((r) =>
      check.writableFinished || broken ? r(undefined) : check.once('finish', r).once('error', r),
    );
    yield {
      kind: 'problem',
      ...(broken ? { line: broken.line } : {}),
      message: broken
        ? `the file is not valid JSON from line ${broken.line}, column ${broken.pos} (${broken.message}); the rest was not read`
        : `the file cannot be read: ${failed!.message}`,
    };
  }
}

const MAX_ITEM = 4 * 1024 * 1024;

/**
 * Counts the characters of each item of the bookmarks array as its tokens pass (the
 * assembler would hold an item whole) and fails the stream past 4 MiB: a hostile file
 * cannot fill memory with one bookmark.
 */
function itemGuard() {
  let depth = 0;
  let size = 0;
  let index = 0;
  const guard = {
    tooBig: undefined as number | undefined,
    stream: new Transform({
      objectMode: true,
      transform(token: { name: string; value?: unknown }, _enc, done) {
        if (token.name === 'startObject' || token.name === 'startArray') depth++;
        else if (token.name === 'endObject' || token.name === 'endArray') depth--;
        if (depth >= 2 || (depth === 1 && (token.name === 'endObject' || token.name === 'endArray'))) {
          size += typeof token.value === 'string' ? token.value.length : 1;
          if (size > MAX_ITEM) {
            guard.tooBig = index;
            return done(new Error(`bookmarks[${index}] is larger than 4 MiB`));
          }
        }
        if (depth === 1 && (token.name === 'endObject' || token.name === 'endArray' || /Value$/.test(token.name))) {
          index++;
          size = 0;
        }
        done(null, token);
      },
    }),
  };
  return guard;
}

function toEntry(index: number, value: unknown): Entry {
  const parsed = KarakeepBookmark.safeParse(value);
  if (!parsed.success) return { kind: 'problem', index, message: 'not a bookmark object' };
  const b = parsed.data;
  const url = (b.content?.url ?? b.url ?? '').trim();
  if (!url)
    return {
      kind: 'problem',
      index,
      message:
        b.content?.type && b.content.type !== 'link'
          ? `a ${b.content.type} bookmark, not a link`
          : 'a bookmark without a URL',
    };
  const addedAt = fromUnixSeconds(b.createdAt);
  const note = b.note?.trim();
  return {
    kind: 'bookmark',
    index,
    url,
    title: (b.title ?? '').replace(/\s+/g, ' ').trim(),
    folders: [],
    tags: [...new Set((b.tags ?? []).map(tagName).filter((t): t is string => !!t))],
    ...(addedAt ? { addedAt } : {}),
    ...(note ? { note } : {}),
  };
}

/** Tags are names, or `{name}` objects in some versions. */
const tagName = (t: unknown): string | undefined =>
  typeof t === 'string'
    ? t.trim() || undefined
    : t && typeof t === 'object' && typeof (t as { name?: unknown }).name === 'string'
      ? (t as { name: string }).name.trim() || undefined
      : undefined;
