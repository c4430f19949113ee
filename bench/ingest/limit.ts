import { summarize } from '../graph/stats';
import { createExtractStage } from '../../services/ingest-worker/src/stages/extract/index';
import { createSandbox } from '../../services/ingest-worker/src/stages/extract/sandbox';
import { sandboxEntry } from '../../services/ingest-worker/src/stages/extract/sandbox-entry';
import { createSummariseStage } from '../../services/ingest-worker/src/stages/summarise';

/**
 * The stages a note goes through, run back to back in this process with no services, bus or
 * database: what the pipeline could do if coordination cost nothing.
 */
export async function inProcessLimit(n: number, text: (i: number) => string) {
  // Notes never reach the extraction sandbox (plain text is not parsed): no process is started.
  const sandbox = createSandbox({
    childEntry: sandboxEntry,
    processes: 1,
    memoryLimitMb: 256,
    outputMaxBytes: 1e6,
    settings: { zip: { maxInflatedBytes: 1e6, maxEntries: 10, maxRatio: 100 }, ocrEnabled: false, ocrTimeoutMs: 1000 },
  });
  const extract = createExtractStage({ sandbox, timeoutMs: { pdf: 1000, image: 1000, other: 1000 } });
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
  await sandbox.close();
  return {
    n,
    captures_per_second: Number((n / seconds).toFixed(0)),
    extract_ms: summarize(extractMs),
    summarise_ms: summarize(summariseMs),
  };
}
