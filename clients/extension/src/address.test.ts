import { describe, expect, it } from 'vitest';
import { pageAddress } from './address';

describe('pageAddress', () => {
  it('never checks the browser’s own pages, files, extension pages or an address it cannot see', () => {
    for (const url of [
      undefined,
      '',
      'chrome://settings/',
      'chrome://newtab/',
      'about:blank',
      'about:addons',
      'edge://favorites',
      'file:///home/me/notes.html',
      'chrome-extension://abcdefghijklmnop/popup.html',
      'moz-extension://8a1c2f9e-0000-4000-8000-000000000000/options.html',
      'view-source:https://example.com/',
      'data:text/html,<p>hi',
      'javascript:alert(1)',
      'blob:https://example.com/0b6c',
    ])
      expect(pageAddress(url)).toBeNull();
  });

  it('keeps a web address as the save sends it, fragment and query included', () => {
    expect(pageAddress('https://example.com/a?b=1#part-2')).toBe('https://example.com/a?b=1#part-2');
    expect(pageAddress('http://127.0.0.2:8080/#/inbox/42')).toBe('http://127.0.0.2:8080/#/inbox/42');
  });

  it('drops a user name and password, as the page’s location.href (what a save sends) does', () => {
    expect(pageAddress('http://user:secret@127.0.0.2:4000/article#part-2')).toBe(
      'http://127.0.0.2:4000/article#part-2',
    );
    expect(pageAddress('https://user@example.com/a')).toBe('https://example.com/a');
    expect(pageAddress('https://:secret@example.com/')).toBe('https://example.com/');
  });

  it('refuses an address longer than the API takes, before and after the credentials go', () => {
    expect(pageAddress(`https://example.com/${'a'.repeat(2100)}`)).toBeNull();
    expect(pageAddress(`https://example.com/${'a'.repeat(2000)}`)).not.toBeNull();
  });

  it('refuses what does not parse', () => {
    expect(pageAddress('http://[not-an-ip/')).toBeNull();
    expect(pageAddress('https://exa mple.com/')).toBeNull();
  });
});
