import { describe, expect, it } from 'vitest';
import { makePdf } from './fixtures';
import { extractPdf } from './pdf';
import { StageError } from '../result';

describe('pdf extraction', () => {
  it('reads the text layer of a real minimal PDF', async () => {
    const out = await extractPdf(makePdf(['Knowledge graphs link ideas.', 'Second line here.'], 'Graphs'));
    expect(out.format).toBe('pdf');
    expect(out.markdown).toContain('Knowledge graphs link ideas.');
    expect(out.markdown).toContain('Second line here.');
    expect(out.title).toBe('Graphs');
    expect(out.metadata).toEqual({ pages: 1, author: 'Test Author' });
    expect(out.notes).toEqual([]);
  });

  it('refuses bytes that are not a PDF, permanently', async () => {
    const err = await extractPdf(Buffer.from('%PDF-1.4 garbage that is no pdf')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StageError);
    expect((err as StageError).retryable).toBe(false);
    expect((err as StageError).message).toMatch(/^not a readable PDF/);
  });
});
