import { describe, expect, it } from 'vitest';
import { captureBody, titleFrom } from './capture.ts';

describe('titleFrom', () => {
  it('takes the first non-blank line without its heading marks', () => {
    expect(titleFrom('\n\n## Cold brew\nbody')).toBe('Cold brew');
  });
  it('cuts a long line at a word, with an ellipsis', () => {
    const title = titleFrom('word '.repeat(60));
    expect(title.length).toBeLessThanOrEqual(121);
    expect(title.endsWith('word…')).toBe(true);
  });
});

describe('captureBody', () => {
  it('files a note as raw content with source mcp', () => {
    expect(captureBody({ kind: 'note', text: 'Idea\nmore' })).toEqual({
      body: { source: 'mcp', title: 'Idea', content_type: 'note', raw_content: 'Idea\nmore' },
    });
  });
  it('files a URL with why, titled by the URL unless given', () => {
    expect(captureBody({ kind: 'url', url: 'https://e.x/a', why: 'read later' })).toEqual({
      body: { source: 'mcp', why: 'read later', title: 'https://e.x/a', url: 'https://e.x/a', content_type: 'article' },
    });
  });
  it('files a highlight as selected text of its page', () => {
    expect(captureBody({ kind: 'highlight', url: 'https://e.x/a', text: 'quote', content_type: 'video' })).toEqual({
      body: { source: 'mcp', title: 'quote', url: 'https://e.x/a', content_type: 'video', selected_text: 'quote' },
    });
  });
  it('says what is missing', () => {
    expect(captureBody({ kind: 'note', text: '  ' })).toEqual({ error: 'A note needs `text`.' });
    expect(captureBody({ kind: 'url' })).toEqual({ error: 'A url capture needs `url`.' });
    expect(captureBody({ kind: 'highlight', url: 'https://e.x' })).toMatchObject({
      error: expect.stringContaining('text'),
    });
  });
});
