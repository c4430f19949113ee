import { describe, expect, it } from 'vitest';
import { fromOwnPage } from './messages';

const self = { id: 'abcdefghijklmnopabcdefghijklmnop', origin: 'chrome-extension://abcdefghijklmnopabcdefghijklmnop' };

describe('fromOwnPage', () => {
  it('answers the extension’s own pages only', () => {
    expect(fromOwnPage({ id: self.id, url: `${self.origin}/popup.html` }, self)).toBe(true);
    expect(fromOwnPage({ id: self.id, url: `${self.origin}/options.html#x` }, self)).toBe(true);
    // A content script or a web page (sender.url is the page's), another extension, nothing.
    expect(fromOwnPage({ id: self.id, url: 'https://evil.example/popup.html' }, self)).toBe(false);
    expect(fromOwnPage({ id: 'otherextension', url: 'chrome-extension://otherextension/popup.html' }, self)).toBe(
      false,
    );
    expect(fromOwnPage({ id: 'otherextension', url: `${self.origin}/popup.html` }, self)).toBe(false);
    expect(fromOwnPage({ url: `${self.origin}/popup.html` }, self)).toBe(false);
    expect(fromOwnPage({ id: self.id }, self)).toBe(false);
    // An origin that merely starts like ours.
    expect(fromOwnPage({ id: self.id, url: `${self.origin}.evil.example/` }, self)).toBe(false);
    expect(fromOwnPage(undefined, self)).toBe(false);
  });
});
