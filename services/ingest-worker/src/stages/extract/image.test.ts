import { afterAll, describe, expect, it } from 'vitest';
import { StageError } from '../result';
import { makePng, makeTextPng } from './fixtures';
import { extractImage } from './image';
import { createOcr, OCR_MODEL } from './ocr';

const ocr = createOcr(true);
afterAll(() => ocr.close());

describe('image extraction', () => {
  it('reads the dimensions and runs OCR offline with the shipped English model', async () => {
    const png = makeTextPng('HELLO WORLD');
    const out = await extractImage(png, { ocr, ocrTimeoutMs: 30_000 });
    expect(out.format).toBe('image');
    expect(out.metadata).toMatchObject({ width: 444, height: 90, image_type: 'png', bytes: png.length });
    expect(out.markdown.toUpperCase()).toContain('HELLO');
    expect(out.models).toEqual(['image-size@2', OCR_MODEL]);
  }, 60_000);

  it('says "no OCR" honestly when OCR is off', async () => {
    const out = await extractImage(makePng(7, 5), { ocr: createOcr(false), ocrTimeoutMs: 1000 });
    expect(out).toMatchObject({
      markdown: '',
      metadata: { width: 7, height: 5, image_type: 'png' },
      notes: ['no OCR: OCR disabled by configuration'],
      models: ['image-size@2'],
    });
  });

  it('fails the stage, not the process, on an image whose header reads but whose data is cut off', async () => {
    const png = makeTextPng('HELLO WORLD');
    const cut = png.subarray(0, Math.floor(png.length / 2));
    const err = await extractImage(cut, { ocr, ocrTimeoutMs: 30_000 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StageError);
    expect(err).toMatchObject({ retryable: false, message: expect.stringMatching(/^OCR could not read the image/) });
    // The worker was replaced: the next image is read as usual.
    const again = await extractImage(png, { ocr, ocrTimeoutMs: 30_000 });
    expect(again.markdown.toUpperCase()).toContain('HELLO');
  }, 90_000);

  it('refuses bytes that are no image', async () => {
    const err = await extractImage(Buffer.from('random bytes named .png'), { ocr, ocrTimeoutMs: 1000 }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(StageError);
    expect((err as StageError).message).toMatch(/^not a readable image/);
  });
});
