import { digest, permanent, transient, type StageResult } from './result';
import { STOPWORDS } from './stopwords';

export interface SummariseInput {
  title: string;
  markdown: string;
}
export interface Summary {
  summary: string;
  tags: string[];
}

export const EXTRACTIVE_MODEL = 'kg-extractive@1.0 (frequency sentence ranking + keyword frequency)';

export interface LlmConfig {
  baseUrl: string;
  model: string;
  apiKey: string | undefined;
  timeoutMs: number;
}

export interface SummariseOptions {
  /** Sentences in an extractive summary. */
  sentences: number;
  /** Tags at most. */
  maxTags: number;
  /** An OpenAI-compatible chat endpoint; the extractive method when absent. */
  llm: LlmConfig | null;
}

const MAX_SUMMARY = 1000;
const MAX_LLM_INPUT = 24_000;

/** Markdown to plain prose: code, links' URLs, images, emphasis and heading marks removed. */
export function plainText(markdown: string): string {
  return markdown
    .replace(/```[\s\S]*?```/g, ' ')
    .replace(/`([^`]*)`/g, '$1')
    .replace(/!\[[^\]]*\]\([^)]*\)/g, ' ')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<https?:[^>]+>/g, ' ')
    .replace(/^[ \t]{0,3}(#{1,6}|>|[-*+]|\d+\.)[ \t]+/gm, '')
    .replace(/[*_~]{1,3}([^*_~]+)[*_~]{1,3}/g, '$1')
    .replace(/[ \t]+/g, ' ')
    .trim();
}

const words = (text: string) =>
  (text.toLowerCase().match(/[\p{L}\p{N}][\p{L}\p{N}'-]*/gu) ?? [])
    .map((w) => w.replace(/['-]+$/, ''))
    .filter((w) => w.length >= 3 && !STOPWORDS.has(w) && !/^\d+$/.test(w));

export function sentencesOf(text: string): string[] {
  return text
    .split(/\n{2,}|\n(?=[A-Z])|(?<=[.!?])\s+(?=["'(\p{Lu}\d])/u)
    .map((s) => s.replace(/\s+/g, ' ').trim())
    .filter((s) => s.length > 1);
}

/**
 * The deterministic default: sentences ranked by the document frequency of their content
 * words (normalised by length, the first sentence slightly favoured), the best kept in their
 * original order; tags are the most frequent content words (a title word gets a point).
 */
export function extractiveSummary(
  input: SummariseInput,
  options: Pick<SummariseOptions, 'sentences' | 'maxTags'>,
): Summary {
  const text = plainText(input.markdown);
  const freq = new Map<string, number>();
  for (const w of words(text)) freq.set(w, (freq.get(w) ?? 0) + 1);
  const titleWords = new Set(words(input.title));
  const sentences = sentencesOf(text);
  const scored = sentences.map((sentence, index) => {
    const ws = words(sentence);
    const sum = ws.reduce((acc, w) => acc + (freq.get(w) ?? 0) + (titleWords.has(w) ? 1 : 0), 0);
    return { sentence, index, score: ws.length ? sum / Math.sqrt(ws.length) + (index === 0 ? 0.5 : 0) : 0 };
  });
  const chosen = [...scored]
    .sort((a, b) => b.score - a.score || a.index - b.index)
    .slice(0, options.sentences)
    .sort((a, b) => a.index - b.index);
  let summary = '';
  for (const { sentence } of chosen) {
    const next = summary ? `${summary} ${sentence}` : sentence;
    if (next.length > MAX_SUMMARY) break;
    summary = next;
  }
  if (!summary && sentences[0]) summary = `${sentences[0].slice(0, MAX_SUMMARY - 1)}…`;
  // A word said once in a longer text is no topic; title words get a point.
  const minCount = freq.size > 40 ? 2 : 1;
  const tags = [...freq.entries()]
    .filter(([w, n]) => w.length <= 64 && n >= minCount)
    .map(([w, n]) => [w, n + (titleWords.has(w) ? 1 : 0)] as const)
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .slice(0, options.maxTags)
    .map(([w]) => w);
  return { summary, tags };
}

const PROMPT = `You summarise a captured document for a personal knowledge graph.
Answer with one JSON object only: {"summary": "<two to four sentences>", "tags": ["<lowercase tag>", ...]}.
Use at most 8 short tags (single words or hyphenated), most relevant first.`;

/** One chat completion on an OpenAI-compatible endpoint (OpenAI, Ollama, vLLM). */
async function llmSummary(
  input: SummariseInput,
  llm: LlmConfig,
  maxTags: number,
): Promise<{ summary: Summary; model: string }> {
  const url = `${llm.baseUrl.replace(/\/+$/, '')}/chat/completions`;
  let res: Response;
  try {
    res = await fetch(url, {
      method: 'POST',
      signal: AbortSignal.timeout(llm.timeoutMs),
      headers: { 'content-type': 'application/json', ...(llm.apiKey ? { authorization: `Bearer ${llm.apiKey}` } : {}) },
      body: JSON.stringify({
        model: llm.model,
        temperature: 0,
        response_format: { type: 'json_object' },
        messages: [
          { role: 'system', content: PROMPT },
          { role: 'user', content: `Title: ${input.title}\n\n${input.markdown.slice(0, MAX_LLM_INPUT)}` },
        ],
      }),
    });
  } catch (err) {
    const e = err as Error;
    throw transient(
      e.name === 'TimeoutError' ? `LLM timed out after ${llm.timeoutMs} ms` : `LLM unreachable: ${e.message}`,
    );
  }
  if (!res.ok) {
    await res.body?.cancel();
    const message = `LLM answered HTTP ${res.status}`;
    throw res.status === 429 || res.status >= 500 ? transient(message) : permanent(message);
  }
  const body = (await res.json().catch(() => null)) as {
    model?: unknown;
    choices?: { message?: { content?: unknown } }[];
  } | null;
  const content = body?.choices?.[0]?.message?.content;
  if (typeof content !== 'string') throw transient('LLM answer has no message content');
  const json = /\{[\s\S]*\}/.exec(content)?.[0];
  let parsed: { summary?: unknown; tags?: unknown };
  try {
    parsed = JSON.parse(json ?? '') as typeof parsed;
  } catch {
    throw transient('LLM answer is not the JSON object asked for');
  }
  if (typeof parsed.summary !== 'string' || !parsed.summary.trim()) throw transient('LLM answer has no summary');
  const tags = Array.isArray(parsed.tags)
    ? [...new Set(parsed.tags.filter((t): t is string => typeof t === 'string').map((t) => t.trim().toLowerCase()))]
        .filter((t) => t.length > 0 && t.length <= 64)
        .slice(0, maxTags)
    : [];
  return {
    summary: { summary: parsed.summary.trim().slice(0, MAX_SUMMARY * 4), tags },
    model: typeof body?.model === 'string' && body.model ? body.model : llm.model,
  };
}

/** The summarise-and-tag stage: the LLM when configured, else the extractive method. */
export function createSummariseStage(options: SummariseOptions) {
  return async function summariseStage(input: SummariseInput): Promise<StageResult<Summary>> {
    const input_digest = digest({ title: input.title, markdown: input.markdown });
    if (!input.markdown.trim()) return { output: { summary: '', tags: [] }, model: EXTRACTIVE_MODEL, input_digest };
    if (options.llm) {
      const { summary, model } = await llmSummary(input, options.llm, options.maxTags);
      return { output: summary, model, input_digest };
    }
    return { output: extractiveSummary(input, options), model: EXTRACTIVE_MODEL, input_digest };
  };
}
export type SummariseStage = ReturnType<typeof createSummariseStage>;
