import path from 'node:path';
import { createRequire } from 'node:module';
import { createWorker, OEM, type Worker } from 'tesseract.js';
import { permanent, StageError, transient } from '../result';

const require = createRequire(import.meta.url);
const TESSERACT_VERSION = (require('tesseract.js/package.json') as { version: string }).version;
/** The English model shipped in the npm registry (@tesseract.js-data/eng); no download at run time. */
const LANG_DIR = (() => {
  try {
    return path.join(path.dirname(require.resolve('@tesseract.js-data/eng/package.json')), '4.0.0');
  } catch {
    return null;
  }
})();

export const OCR_MODEL = `tesseract.js@${TESSERACT_VERSION} eng 4.0.0 (LSTM)`;

export interface Ocr {
  /** null when OCR is not available here, with the reason in `unavailable`. */
  readonly unavailable: string | null;
  recognise(image: Uint8Array, timeoutMs: number): Promise<{ text: string; confidence: number }>;
  close(): Promise<void>;
}

/**
 * One tesseract worker, made on first use and reused (it takes a second to load the model).
 * A recognition past its time limit terminates the worker; the next call makes a new one.
 */
export function createOcr(enabled: boolean): Ocr {
  let worker: Promise<Worker> | null = null;
  let queue: Promise<unknown> = Promise.resolve();
  const unavailable = !enabled ? 'OCR disabled by configuration' : !LANG_DIR ? 'no English OCR model installed' : null;
  const get = () =>
    (worker ??= createWorker('eng', OEM.LSTM_ONLY, {
      langPath: LANG_DIR!,
      cacheMethod: 'none',
      gzip: true,
      // Without a handler tesseract.js rethrows a failed job from its message listener, an uncaught
      // exception that ends the process (one corrupt upload took the embedded server down). The job's
      // promise is rejected all the same, and `recognise` turns that into a failed stage.
      errorHandler: () => undefined,
    }));
  const reset = async () => {
    const old = worker;
    worker = null;
    await old?.then((w) => w.terminate()).catch(() => undefined);
  };
  return {
    unavailable,
    recognise(image, timeoutMs) {
      if (unavailable) return Promise.reject(new Error(unavailable));
      // Tesseract's worker does one image at a time: calls wait their turn.
      const run = queue.then(async () => {
        let timer: NodeJS.Timeout | undefined;
        const timeout = new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(transient(`OCR exceeded ${timeoutMs} ms`)), timeoutMs);
        });
        try {
          const { data } = await Promise.race([get().then((w) => w.recognize(Buffer.from(image))), timeout]);
          return { text: data.text.trim(), confidence: data.confidence };
        } catch (err) {
          await reset();
          if (err instanceof StageError) throw err;
          // tesseract.js rejects with a bare string such as "Error: Error attempting to read image."
          const reason = String(err instanceof Error ? err.message : err).replace(/^(Error: )+/, '');
          throw permanent(`OCR could not read the image: ${reason}`);
        } finally {
          clearTimeout(timer);
        }
      });
      queue = run.catch(() => undefined);
      return run;
    },
    close: reset,
  };
}
