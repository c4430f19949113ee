import { describe, expect, it } from 'vitest';
import { contentTypeOfUrl, webAddress } from './capture-kinds';

describe('capture kinds', () => {
  it('a URL content type from the host', () => {
    expect(contentTypeOfUrl('https://x.com/a/status/1')).toBe('tweet');
    expect(contentTypeOfUrl('https://www.youtube.com/watch?v=1')).toBe('video');
    expect(contentTypeOfUrl('https://github.com/a/b')).toBe('repo');
    expect(contentTypeOfUrl('https://example.com/post')).toBe('article');
    expect(contentTypeOfUrl('not a url')).toBe('article');
  });

  it('a web address only when the whole text is one http(s) URL the API accepts', () => {
    expect(webAddress('  https://example.com/a?b=1 \n')).toBe('https://example.com/a?b=1');
    expect(webAddress('HTTP://EXAMPLE.COM')).toBe('HTTP://EXAMPLE.COM');
    expect(webAddress('see https://example.com')).toBeNull();
    expect(webAddress('javascript:alert(1)')).toBeNull();
    expect(webAddress('ftp://example.com/file')).toBeNull();
    expect(webAddress('https://')).toBeNull();
    expect(webAddress(`https://example.com/${'a'.repeat(2048)}`)).toBeNull();
  });
});
