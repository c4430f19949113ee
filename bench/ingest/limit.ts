import { summarize } from '../graph/stats';
import { createExtractStage } from '../../services/ingest-worker/src/stages/extract/index';
import { createOcr } from '../../services/ingest-worker/src/stages/extract/ocr';
import { createSummariseStage } from '../../services/ingest-worker/src/stages/summarise';

/**
 * The stages a note goes through, run back to back in this process with no services, bus or
 * database: what the pipeline could do if coordination cost nothing.
 */
export async function inProcessLimit(n: number, text: (i: number) => string) {
  const ocr = createOcr(false);
  const extract = createExtractStage({
    pdfTimeoutMs: 1000,
    ocrTimeoutMs: 1000,
    zip: { maxInflatedBytes: 1e6, maxEntries: 10 },
    ocr,
  });
  const summarise = createSummariseStage({ sentences: 3, maxTags: 8, llm: null });
  const extractMs: number[] = [];
  const summariseMs: number[] = [];
  const t0 = performance.now();
  for (let i = 0; i < n; i++) {
    const a = performance.now();
    const e = await extract({
      content_type: 'note',
      mime: null,
      bytes: null,
      url: null,
      title: `Field note ${i}`,
      selected_text: null,
      raw_content: text(i),
      why: null,
    });
    const b = performance.now();
    await summarise({ title: `Field note ${i}`, markdown: e.output.markdown });
    summariseMs.push(performance.now() - b);
    extractMs.push(b - a);
  }
  const seconds = (performance.now() - t0) / 1000;
  await ocr.close();
  return {
    n,
    captures_per_second: Number((n / seconds).toFixed(0)),
    extract_ms: summarize(extractMs),
    summarise_ms: summarize(summariseMs),
  };
}
