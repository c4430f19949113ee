export { detectFormat, readHead } from './detect.ts';
export { parseKarakeepJson } from './karakeep-json.ts';
export { LineCounter } from './line-counter.ts';
export { parseNetscape } from './netscape.ts';
export { parseBookmarks, readBookmarks } from './parse.ts';
export { parsePocketCsv } from './pocket-csv.ts';
export {
  fromUnixSeconds,
  place,
  splitTags,
  type Bookmark,
  type BookmarkFormat,
  type Chunks,
  type Entry,
  type Problem,
} from './types.ts';
export { contentTypeOfUrl, judgeUrl, type SkipReason, type UrlContentType } from './url.ts';
