import { imageSize } from 'image-size';
import { permanent } from '../result';
import { OCR_MODEL, type Ocr } from './ocr';
import type { Extracted } from './types';

export const IMAGE_MODEL = 'image-size@2';

export interface ImageOptions {
  ocr: Ocr;
  ocrTimeoutMs: number;
}

/**
 * An image: its dimensions and type from the header, and its text by OCR when a local model
 * is there. Without OCR (disabled, or no model) the note says so and the markdown stays empty.
 */
export async function extractImage(
  bytes: Uint8Array,
  options: ImageOptions,
): Promise<Extracted & { models: string[] }> {
  let size: ReturnType<typeof imageSize>;
  try {
    size = imageSize(bytes);
  } catch (err) {
    throw permanent(`not a readable image: ${(err as Error).message}`);
  }
  const metadata: Record<string, unknown> = {
    width: size.width,
    height: size.height,
    image_type: size.type,
    bytes: bytes.length,
    ...(size.orientation ? { orientation: size.orientation } : {}),
  };
  if (options.ocr.unavailable)
    return {
      markdown: '',
      title: null,
      format: 'image',
      metadata,
      notes: [`no OCR: ${options.ocr.unavailable}`],
      models: [IMAGE_MODEL],
    };
  const { text, confidence } = await options.ocr.recognise(bytes, options.ocrTimeoutMs);
  return {
    markdown: text,
    title: null,
    format: 'image',
    metadata: { ...metadata, ocr_confidence: Math.round(confidence) },
    notes: text ? [] : ['OCR found no text'],
    models: [IMAGE_MODEL, OCR_MODEL],
  };
}
