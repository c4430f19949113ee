import { describe, expect, it } from 'vitest';
import { LIMITS, capturable, classify, linkCapture, pageCapture, selectionCapture, type PageRead } from './page';

const read = (over: Partial<PageRead> = {}): PageRead => ({
  url: 'https://example.com/post',
  title: 'A post',
  selection: '',
  html: '<html><body>text</body></html>',
  mime: 'text/html',
  ogType: '',
  ...over,
});

describe('what the extension captures', () => {
  it('classifies by the document type, then the host, then og:type', () => {
    expect(classify('https://example.com/paper', 'application/pdf')).toBe('pdf');
    expect(classify('https://example.com/paper.PDF?dl=1')).toBe('pdf');
    expect(classify('https://example.com/cat', 'image/webp')).toBe('image');
    expect(classify('https://x.com/a/status/1', 'text/html')).toBe('tweet');
    expect(classify('https://www.youtube.com/watch?v=1')).toBe('video');
    expect(classify('https://github.com/a/b')).toBe('repo');
    expect(classify('https://example.com/clip', 'text/html', 'video.other')).toBe('video');
    expect(classify('https://example.com/post', 'text/html', 'article')).toBe('article');
  });

  it('a page carries its HTML, selection and why; a PDF or an image is read from its address', () => {
    expect(pageCapture(read({ selection: ' quote ' }), ' because ')).toEqual({
      title: 'A post',
      url: 'https://example.com/post',
      content_type: 'article',
      source: 'browser-extension',
      selected_text: ' quote ',
      raw_content: '<html><body>text</body></html>',
      why: 'because',
    });
    const pdf = pageCapture(read({ mime: 'application/pdf', html: '<embed>' }));
    expect(pdf).not.toHaveProperty('raw_content');
    expect(pdf.content_type).toBe('pdf');
  });

  it('keeps within the API limits and never sends an empty title', () => {
    const long = pageCapture(read({ title: `  ${'t'.repeat(600)}\n`, selection: 's'.repeat(LIMITS.selection + 5) }));
    expect(long.title).toHaveLength(LIMITS.title);
    expect(long.selected_text).toHaveLength(LIMITS.selection);
    expect(pageCapture(read({ title: '   ' })).title).toBe('https://example.com/post');
    expect(selectionCapture('https://example.com/a', '', 'q').title).toBe('https://example.com/a');
    expect(linkCapture('https://github.com/a/b')).toEqual({
      title: 'https://github.com/a/b',
      url: 'https://github.com/a/b',
      content_type: 'repo',
      source: 'browser-extension',
    });
  });

  it('captures only web pages', () => {
    for (const url of ['https://example.com', 'http://localhost:8080/x']) expect(capturable(url), url).toBe(true);
    for (const url of [
      undefined,
      'chrome://extensions',
      'file:///etc/passwd',
      'javascript:alert(1)',
      'about:blank',
      `https://e.com/${'a'.repeat(2100)}`,
    ])
      expect(capturable(url), String(url)).toBe(false);
  });
});
