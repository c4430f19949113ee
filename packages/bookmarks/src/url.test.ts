import { describe, expect, it } from 'vitest';
import { detectFormat } from './detect.ts';
import { fromUnixSeconds } from './types.ts';
import { judgeUrl } from './url.ts';

describe('judgeUrl', () => {
  it.each([
    'javascript:alert(document.cookie)',
    '  JavaScript:void(0)',
    '\tjavascript:alert(1)',
    'data:text/html,<script>alert(1)</script>',
    'file:///etc/passwd',
    'place:sort=8&maxResults=10',
    'chrome://settings',
    'ftp://example.com/file',
    'about:blank',
  ])('skips %s as an unsupported scheme', (raw) => {
    expect(judgeUrl(raw)).toEqual({ skip: 'unsupported_scheme' });
  });

  it('keeps http(s) addresses as written, normalises what the API would refuse, refuses the rest', () => {
    expect(judgeUrl(' https://example.com/a?b=1#c ')).toEqual({ url: 'https://example.com/a?b=1#c' });
    expect(judgeUrl('HTTP://Example.com/a b')).toEqual({ url: 'http://example.com/a%20b' });
    expect(judgeUrl('not a url')).toEqual({ skip: 'invalid_url' });
    expect(judgeUrl('')).toEqual({ skip: 'invalid_url' });
    expect(judgeUrl(`https://example.com/${'a'.repeat(2100)}`)).toEqual({ skip: 'url_too_long' });
  });
});

describe('detectFormat', () => {
  it('tells the three formats from their first bytes', () => {
    expect(detectFormat('\uFEFF<!DOCTYPE NETSCAPE-Bookmark-file-1>\n<DL>')).toBe('html');
    expect(detectFormat('<!DOCTYPE html><html>')).toBe('html');
    expect(detectFormat('  {"bookmarks": []}')).toBe('karakeep-json');
    expect(detectFormat('title,url,time_added,tags,status\n')).toBe('pocket-csv');
    expect(detectFormat('just some text\n')).toBeUndefined();
  });
});

describe('fromUnixSeconds', () => {
  it('reads seconds, milliseconds and microseconds; refuses junk', () => {
    expect(fromUnixSeconds('1550000000')).toEqual(new Date(1_550_000_000_000));
    expect(fromUnixSeconds(1_550_000_000_000)).toEqual(new Date(1_550_000_000_000));
    expect(fromUnixSeconds('1550000000000000')).toEqual(new Date(1_550_000_000_000));
    expect(fromUnixSeconds('yesterday')).toBeUndefined();
    expect(fromUnixSeconds('-5')).toBeUndefined();
    expect(fromUnixSeconds(undefined)).toBeUndefined();
  });
});
