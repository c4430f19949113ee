import { createExtractStage, type ExtractStage } from './stages/extract/index';
import { createOcr, type Ocr } from './stages/extract/ocr';
import { createFetchStage, type FetchStage } from './stages/fetch';
import { createSummariseStage, type SummariseStage } from './stages/summarise';
import type { PipelineConfig } from './config';

/** The stages of one worker, built once from its configuration. */
export interface Stages {
  fetch: FetchStage;
  extract: ExtractStage;
  summarise: SummariseStage;
  ocr: Ocr;
}

export function createStages(c: PipelineConfig): Stages {
  const ocr = createOcr(c.OCR_ENABLED);
  return {
    ocr,
    fetch: createFetchStage({
      connectTimeoutMs: c.FETCH_CONNECT_TIMEOUT_MS,
      totalTimeoutMs: c.FETCH_TIMEOUT_MS,
      maxBytes: c.FETCH_MAX_BYTES,
      maxRedirects: c.FETCH_MAX_REDIRECTS,
      allowlist: c.FETCH_ALLOWLIST,
    }),
    extract: createExtractStage({
      pdfTimeoutMs: c.PDF_TIMEOUT_MS,
      ocrTimeoutMs: c.OCR_TIMEOUT_MS,
      zip: { maxInflatedBytes: c.DOCX_MAX_INFLATED_BYTES, maxEntries: c.DOCX_MAX_ENTRIES },
      ocr,
    }),
    summarise: createSummariseStage({
      sentences: c.SUMMARY_SENTENCES,
      maxTags: c.SUMMARY_MAX_TAGS,
      llm:
        c.LLM_BASE_URL && c.LLM_MODEL
          ? { baseUrl: c.LLM_BASE_URL, model: c.LLM_MODEL, apiKey: c.LLM_API_KEY, timeoutMs: c.LLM_TIMEOUT_MS }
          : null,
    }),
  };
}
