import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FrontMatterError, nodeToFile, parseNodeFile } from './node-file.ts';

/** Front matter that writes `marker` if anything evaluates it as JavaScript. */
const hostile = (language: string, marker: string) =>
  `---${language}\n{ title: (require('node:fs').writeFileSync(${JSON.stringify(marker)}, 'ran'), 'pwned') }\n---\nbody\n`;

const markerPath = () => path.join(mkdtempSync(path.join(tmpdir(), 'kg-front-matter-')), 'marker');

describe('front matter is YAML only', () => {
  for (const language of ['js', 'javascript', 'JS', ' js', 'coffee', 'json', 'toml']) {
    it(`refuses ---${language} without evaluating it, naming the file`, () => {
      const marker = markerPath();
      let error: unknown;
      try {
        parseNodeFile(hostile(language, marker), 'notes/evil.md');
      } catch (e) {
        error = e;
      }
      expect(existsSync(marker)).toBe(false);
      expect(error).toBeInstanceOf(FrontMatterError);
      expect((error as Error).message).toBe(
        `notes/evil.md: front matter in "${language.trim()}" is refused; only YAML front matter is read`,
      );
      expect((error as FrontMatterError).reason).toBe(
        `front matter in "${language.trim()}" is refused; only YAML front matter is read`,
      );
    });
  }

  it('reads ---yaml and ---yml like ---', () => {
    expect(parseNodeFile('---yaml\ntitle: A\n---\nbody')).toMatchObject({ title: 'A', content: 'body' });
    expect(parseNodeFile('---yml\ntitle: B\n---\nbody')).toMatchObject({ title: 'B', content: 'body' });
  });

  it('refuses YAML tags that construct code or objects (!!js/function, !!js/regexp, !!binary)', () => {
    const tags = { '!!js/function': '!!js/function', '!!js/regexp': '!!js/regexp', '!!binary': '!!binary' };
    for (const [tag, shown] of Object.entries({ ...tags, '!<tag:yaml.org,2002:js/function>': '!!js/function' }))
      expect(() => parseNodeFile(`---\ntitle: ${tag} 'function () { return 1 }'\n---\nx`, 'a.md')).toThrow(
        new FrontMatterError('a.md', `front matter tag ${shown} is refused; only plain YAML values are read`),
      );
  });

  it('refuses an alias bomb instead of expanding it', () => {
    const levels = ['a: &a [x, x, x, x, x, x, x, x, x, x]'];
    for (let i = 1; i < 9; i++) {
      const prev = String.fromCharCode(96 + i);
      const name = String.fromCharCode(97 + i);
      levels.push(`${name}: &${name} [${Array(10).fill(`*${prev}`).join(', ')}]`);
    }
    const text = `---\n${levels.join('\n')}\ntags: *i\n---\nx`;
    expect(() => parseNodeFile(text, 'bomb.md')).toThrow(/^bomb\.md: front matter uses too many aliases/);
  });

  it('does not let __proto__ reach the prototype', () => {
    const parsed = parseNodeFile('---\n__proto__:\n  polluted: yes\ntitle: T\n---\nx');
    expect(parsed.title).toBe('T');
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
    expect(Object.getPrototypeOf(parsed.data)).toBe(Object.prototype);
  });

  it('reports invalid YAML with the file name', () => {
    expect(() => parseNodeFile('---\ntitle: [unclosed\n---\nx', 'bad.md')).toThrow(
      /^bad\.md: front matter is not valid YAML: /,
    );
  });

  it('reads dates as the text written, not Date objects', () => {
    expect(parseNodeFile('---\ntitle: 2024-01-02\n---\nx').title).toBe('2024-01-02');
  });

  it('without a closing line, or with a rule of four dashes, the whole text is the body', () => {
    expect(parseNodeFile('---\nnot closed\n')).toMatchObject({ title: undefined, content: '---\nnot closed\n' });
    expect(parseNodeFile('----\ntitle: x\n----\nb')).toMatchObject({ title: undefined });
    expect(parseNodeFile('plain text')).toMatchObject({ data: {}, content: 'plain text' });
  });

  it('handles CRLF, a byte-order mark and empty front matter', () => {
    expect(parseNodeFile('\ufeff---\r\ntitle: W\r\n---\r\nbody\r\n')).toMatchObject({
      title: 'W',
      content: 'body\r\n',
    });
    expect(parseNodeFile('---\n---\nbody')).toMatchObject({ data: {}, content: 'body' });
  });

  it('writes front matter that reads back, single-quoting wiki links', () => {
    const text = nodeToFile({ title: '[[T]]: x', summary: '', tags: ['a'], status: 'raw', body_markdown: 'B\n' });
    expect(text).toBe("---\ntitle: '[[T]]: x'\nsummary: ''\ntags:\n  - a\nstatus: raw\n---\n\nB\n");
    expect(parseNodeFile(text)).toMatchObject({ title: '[[T]]: x', summary: '', tags: ['a'], content: 'B\n' });
  });
});
