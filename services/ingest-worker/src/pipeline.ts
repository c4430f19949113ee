import { createExtractStage, type ExtractStage } from './stages/extract/index';
import { SANDBOX_START_TIMEOUT_MS, type Sandbox, type SandboxOutcome } from './stages/extract/sandbox';
import { createSupervisedSandbox } from './stages/extract/supervised';
import { createFetchStage, type FetchStage } from './stages/fetch';
import { createSummariseStage, type SummariseStage } from './stages/summarise';
import type { PipelineConfig } from './config';

/** The stages of one worker, built once from its configuration. */
export interface Stages {
  fetch: FetchStage;
  extract: ExtractStage;
  summarise: SummariseStage;
  /** The extraction sandbox's processes (stop them on close). */
  sandbox: Sandbox;
}

/**
 * The extract stage's attempt limit: its sandbox's longest wall time, start-up included (the
 * supervisor's, with the first job, then the sandbox process's), or the stage limit if longer.
 */
export function extractStageTimeoutMs(c: PipelineConfig): number {
  const longest = Math.max(c.EXTRACT_TIMEOUT_MS, c.PDF_TIMEOUT_MS, c.OCR_TIMEOUT_MS);
  return Math.max(c.INGEST_STAGE_TIMEOUT_MS, longest + 2 * SANDBOX_START_TIMEOUT_MS + 5000);
}

export function createStages(c: PipelineConfig, hooks: { onSandbox?: (outcome: SandboxOutcome) => void } = {}): Stages {
  const sandbox = createSupervisedSandbox({
    ...(hooks.onSandbox ? { onOutcome: hooks.onSandbox } : {}),
    processes: c.EXTRACT_SANDBOX_PROCESSES,
    memoryLimitMb: c.EXTRACT_MEMORY_LIMIT_MB,
    outputMaxBytes: c.EXTRACT_OUTPUT_MAX_BYTES,
    settings: {
      zip: {
        maxInflatedBytes: c.DOCX_MAX_INFLATED_BYTES,
        maxEntries: c.DOCX_MAX_ENTRIES,
        maxRatio: c.DOCX_MAX_INFLATION_RATIO,
      },
      ocrEnabled: c.OCR_ENABLED,
      // The sandbox's wall time limit ends OCR; tesseract's own limit stays out of its way.
      ocrTimeoutMs: c.OCR_TIMEOUT_MS + 1000,
    },
  });
  return {
    sandbox,
    fetch: createFetchStage({
      connectTimeoutMs: c.FETCH_CONNECT_TIMEOUT_MS,
      totalTimeoutMs: c.FETCH_TIMEOUT_MS,
      maxBytes: c.FETCH_MAX_BYTES,
      maxRedirects: c.FETCH_MAX_REDIRECTS,
      allowlist: c.FETCH_ALLOWLIST,
    }),
    extract: createExtractStage({
      sandbox,
      timeoutMs: { pdf: c.PDF_TIMEOUT_MS, image: c.OCR_TIMEOUT_MS, other: c.EXTRACT_TIMEOUT_MS },
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
