import { describe, expect, it } from 'vitest';
import { extractHtml } from './html';

const page = `<!doctype html><html lang="en"><head><title>Growing tomatoes on a balcony | Gardens</title></head><body>
<nav><a href="/">Home</a> <a href="/about">About</a></nav>
<article>
<h1>Growing tomatoes on a balcony</h1>
<p class="byline">By Ada Gardener</p>
<p>Tomatoes need at least six hours of direct sunlight every day, so a south-facing balcony is the best place for them. Choose a container of at least twenty litres.</p>
<p>Water deeply but not too often: the soil should dry slightly between waterings, which keeps the roots healthy and the fruit tasty.</p>
<h2>Feeding</h2>
<ul><li>Use a <strong>potassium-rich</strong> fertiliser once the first flowers appear.</li><li>Stop feeding in autumn.</li></ul>
<script>trackEveryone()</script>
</article>
<footer>Copyright 2026, all rights reserved. Cookie settings.</footer>
</body></html>`;

describe('html extraction', () => {
  it('keeps the article as markdown and drops navigation, scripts and footer', () => {
    const out = extractHtml(page, 'https://example.org/tomatoes');
    expect(out.format).toBe('html');
    expect(out.title).toBe('Growing tomatoes on a balcony');
    expect(out.markdown).toContain('six hours of direct sunlight');
    expect(out.markdown).toMatch(/## Feeding/);
    expect(out.markdown).toMatch(/-\s+Use a \*\*potassium-rich\*\* fertiliser/);
    expect(out.markdown).not.toContain('trackEveryone');
    expect(out.markdown).not.toContain('Cookie settings');
    expect(out.markdown).not.toContain('About');
    expect(out.metadata).toMatchObject({ url: 'https://example.org/tomatoes', byline: 'By Ada Gardener', lang: 'en' });
  });

  it('converts a tiny page whole', () => {
    const out = extractHtml(
      '<html><head><title>Tiny</title></head><body><p>Just <em>one</em> line.</p></body></html>',
      null,
    );
    expect(out.markdown).toBe('Just _one_ line.');
    expect(out.title).toBe('Tiny');
  });

  it('says so when a page holds no article at all', () => {
    const out = extractHtml('<html><head><title>Empty</title></head><body><div></div></body></html>', null);
    expect(out.markdown).toBe('');
    expect(out.notes).toEqual(['no article found; whole body converted']);
  });
});
