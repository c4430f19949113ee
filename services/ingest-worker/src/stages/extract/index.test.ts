import { afterAll, describe, expect, it } from 'vitest';
import { digest, StageError } from '../result';
import { makeDocx, makePdf, makePng } from './fixtures';
import { createExtractStage, type ExtractInput } from './index';
import { sandboxEntry } from './sandbox-entry';
import { createSandbox } from './sandbox';

const sandbox = createSandbox({
  childEntry: sandboxEntry,
  processes: 2,
  memoryLimitMb: 512,
  outputMaxBytes: 1e6,
  settings: { zip: { maxInflatedBytes: 1e6, maxEntries: 50, maxRatio: 100 }, ocrEnabled: false, ocrTimeoutMs: 10_000 },
});
afterAll(() => sandbox.close());
const extract = createExtractStage({ sandbox, timeoutMs: { pdf: 30_000, image: 30_000, other: 30_000 } });

const capture = (over: Partial<ExtractInput>): ExtractInput => ({
  content_type: 'note',
  mime: null,
  bytes: null,
  url: null,
  title: 'T',
  selected_text: null,
  raw_content: null,
  why: null,
  ...over,
});

describe('extract stage', () => {
  it('keeps a note as it is', async () => {
    const result = await extract(capture({ raw_content: '  Remember: **graphs** beat folders.\n' }));
    expect(result.output).toMatchObject({ markdown: 'Remember: **graphs** beat folders.', format: 'text' });
    expect(result.model).toBe('passthrough@1');
  });

  it('keeps a selection as it is', async () => {
    const result = await extract(capture({ content_type: 'article', selected_text: 'A highlighted passage.' }));
    expect(result.output.markdown).toBe('A highlighted passage.');
  });

  it('sends uploaded bytes by their magic bytes, whatever the declared type', async () => {
    const pdf = makePdf(['Magic wins.']);
    const result = await extract(capture({ content_type: 'pdf', bytes: pdf, mime: 'text/plain' }));
    expect(result.output.format).toBe('pdf');
    expect(result.output.markdown).toBe('Magic wins.');
    expect(result.model).toContain('unpdf');
    expect(result.input_digest).toBe(digest(pdf));
  });

  it('converts a DOCX, an image and plain text uploads', async () => {
    const docx = await extract(
      capture({ content_type: 'article', bytes: await makeDocx('Title', ['Body.']), mime: null }),
    );
    expect(docx.output.markdown).toBe('# Title\n\nBody.');
    const png = await extract(capture({ content_type: 'image', bytes: makePng(3, 2), mime: 'image/png' }));
    expect(png.output).toMatchObject({
      format: 'image',
      metadata: { width: 3, height: 2 },
      notes: ['no OCR: OCR disabled by configuration'],
    });
    const txt = await extract(
      capture({ content_type: 'article', bytes: Buffer.from('plain words\n'), mime: 'text/plain' }),
    );
    expect(txt.output.markdown).toBe('plain words');
  });

  it('decodes a fetched page with its charset and puts the selected passage on top as a quote', async () => {
    const html = Buffer.from(
      '<html><head><title>Café</title></head><body><p>Crème brûlée recipe.</p></body></html>',
      'latin1',
    );
    const result = await extract(
      capture({
        content_type: 'article',
        bytes: html,
        mime: 'text/html',
        url: 'https://x.test/',
        selected_text: 'Crème',
      }),
      'iso-8859-1',
    );
    expect(result.output.markdown).toBe('> Crème\n\nCrème brûlée recipe.');
    expect(result.output.title).toBe('Café');
  });

  it('runs HTML found in raw_content through Readability', async () => {
    const result = await extract(
      capture({ content_type: 'article', raw_content: '<html><body><p>Saved <b>page</b>.</p></body></html>' }),
    );
    expect(result.output).toMatchObject({ format: 'html', markdown: 'Saved **page**.' });
  });

  it('records what a tweet, video, repo or audio capture carries, and says so', async () => {
    const result = await extract(
      capture({
        content_type: 'video',
        url: 'https://video.test/v/1',
        selected_text: 'Key moment',
        raw_content: 'Transcript line.',
      }),
    );
    expect(result.output).toEqual({
      markdown: '> Key moment\n\nTranscript line.\n\nSource: <https://video.test/v/1>',
      title: null,
      format: 'carried',
      metadata: { url: 'https://video.test/v/1' },
      notes: ['video capture: only what the capture carries (URL, title, selected text, raw content)'],
    });
  });

  it('refuses bytes of a type it cannot read, permanently', async () => {
    const err = await extract(
      capture({ content_type: 'article', bytes: Buffer.from([0x4d, 0x5a, 0x90, 0]), mime: 'application/x-msdownload' }),
    ).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StageError);
    expect((err as StageError).message).toBe('cannot extract content of type application/x-msdownload');
  });
});
