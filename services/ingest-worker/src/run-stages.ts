import { CAPTURE_MARKDOWN_MAX_CHARS, FETCHED_CONTENT_TYPES, type capturesApi } from '@kg/contracts';
import type { Logger } from '@kg/logger';
import type { ServiceClient } from '@kg/trpc';
import type { Extracted, ExtractInput } from './stages/extract/index';
import { digest, permanent, type StageError, transient, type StageResult } from './stages/result';
import type { Summary } from './stages/summarise';
import { asStageError, recordStage, systemIdentity } from './captures-calls';
import { propose } from './stages/propose';
import { importOf, mergeTags, nodeContent } from './import-metadata';
import type { HostTurn } from './host-gate';
import type { RunJob, RunnerDeps, RunState } from './run-types';

export const NODE_MODEL = 'graph captures.upsertNode@1';
const MAX_NODE_CONTENT = 1_000_000;

interface StageDef {
  name: string;
  /** false: the stage does not apply to this capture (e.g. fetch without a URL to fetch). */
  applies(s: RunState): boolean;
  run(s: RunState, turn: HostTurn | null): Promise<StageResult<Record<string, unknown>>>;
  /** Takes a recorded output back into the state (resume). false: it cannot, run it again. */
  restore(s: RunState, output: Record<string, unknown>): boolean;
  /** Waits, before each attempt and outside its time limit, for the turn the attempt needs (fetch: its host's). */
  turn?(s: RunState): Promise<HostTurn | null>;
}

const mimeOf = (type: string | null) => (type ? type.split(';')[0]!.trim().toLowerCase() : null);

const STAGES = (deps: RunnerDeps, job: RunJob): StageDef[] => [
  {
    name: 'fetch',
    applies: (s) =>
      Boolean(s.capture.url) &&
      !s.content!.bytes &&
      !s.content!.raw &&
      FETCHED_CONTENT_TYPES.has(s.capture.content_type),
    async run(s, turn) {
      const r = await deps.stages.fetch({
        url: s.capture.url!,
        ...(turn ? { beforeRequest: () => turn.start() } : {}),
      });
      s.fetched = r.output;
      const { body, ...meta } = r.output;
      return { ...r, output: { ...meta, bytes: body.length, sha256: digest(body) } };
    },
    // The fetched body is not kept in provenance: extract, when it has to run again, fetches again.
    restore: () => false,
    // Politeness (FETCH_MAX_PER_HOST, FETCH_HOST_INTERVAL_MS): the wait for the host's turn (a place
    // at the host, then a start time) happens aside the work pool, other hosts' runs taking this
    // run's place meanwhile; right before the request, the start is checked against the previous one.
    async turn(s) {
      const gate = deps.hostGate;
      if (!gate || !URL.canParse(s.capture.url!)) return null;
      const host = new URL(s.capture.url!).hostname;
      return s.aside ? s.aside(() => gate.enter(host)) : gate.enter(host);
    },
  },
  {
    name: 'extract',
    applies: () => true,
    async run(s) {
      const c = s.capture;
      const input: ExtractInput = {
        content_type: c.content_type,
        mime: s.fetched ? s.fetched.mime : s.content!.mime,
        bytes: s.fetched ? s.fetched.body : s.content!.bytes,
        url: s.fetched?.url ?? c.url,
        title: c.title,
        selected_text: c.selected_text,
        raw_content: s.content!.raw,
        why: c.why,
      };
      const r = await deps.stages.extract(input, s.fetched?.charset ?? null);
      // The capture keeps its processed markdown: text longer than it may hold fails here, once.
      if (r.output.markdown.length > CAPTURE_MARKDOWN_MAX_CHARS)
        throw permanent(
          `the extracted text has ${r.output.markdown.length.toLocaleString('en-US')} characters; a capture keeps at most ${CAPTURE_MARKDOWN_MAX_CHARS.toLocaleString('en-US')}`,
        );
      s.extracted = r.output;
      return { ...r, output: { ...r.output } };
    },
    restore(s, o) {
      s.extracted = o as unknown as Extracted;
      return typeof o.markdown === 'string';
    },
  },
  {
    name: 'summarise',
    applies: () => true,
    async run(s) {
      const r = await deps.stages.summarise({ title: s.capture.title, markdown: s.extracted!.markdown });
      s.summary = r.output;
      return { ...r, output: { ...r.output } };
    },
    restore(s, o) {
      s.summary = o as unknown as Summary;
      return typeof o.summary === 'string' && Array.isArray(o.tags);
    },
  },
  {
    name: 'node',
    applies: () => true,
    async run(s) {
      // A bookmark import's tags come first; its date, folder and note are a section of the content.
      const imported = importOf(s.capture.metadata);
      const input = {
        capture_id: s.capture.id,
        title: s.capture.title,
        content: nodeContent(s.extracted!.markdown, imported, MAX_NODE_CONTENT),
        summary: s.summary!.summary.slice(0, 10_000),
        tags: mergeTags(imported?.tags ?? [], s.summary!.tags),
      };
      const graph = deps.graph.as(systemIdentity(job.tenant_id));
      const { node, created } = await graph.captures.upsertNode(input).catch((err: unknown) => {
        throw asStageError(err, 'graph');
      });
      s.nodeIds = [node.id];
      return { output: { node_ids: [node.id], created }, model: NODE_MODEL, input_digest: digest(input) };
    },
    restore(s, o) {
      s.nodeIds = o.node_ids as string[];
      return Array.isArray(o.node_ids);
    },
  },
  {
    name: 'propose',
    applies: (s) => Boolean(s.nodeIds?.length),
    run: (s) => propose(deps, job, s),
    restore: (_s, o) => Array.isArray(o.proposals),
  },
];

function withTimeout<T>(work: Promise<T>, ms: number, name: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(transient(`${name} exceeded ${ms} ms`)), ms);
  });
  return Promise.race([work, limit]).finally(() => clearTimeout(timer));
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Runs the stages of one claimed run in order. A stage recorded by an earlier attempt is
 * restored from its output and skipped (a fetch is repeated only when extract must run again). Returns null when every stage completed, or the
 * stage that failed (after its bounded retries) with its error.
 */
export async function runStages(
  deps: RunnerDeps,
  captures: ServiceClient<typeof capturesApi>,
  job: RunJob,
  s: RunState,
  log: Logger,
  /** Set when the run may not be tried again: the next stage to run fails with this reason. */
  giveUp: string | null = null,
): Promise<{ stage: string; error: StageError } | null> {
  const defs = STAGES(deps, job);
  // Restore what is recorded, from the end: a stage whose output is restored needs no earlier one.
  const restored = new Set<string>();
  for (const def of defs) {
    const output = s.completed.get(def.name);
    if (output && def.restore(s, output)) restored.add(def.name);
  }
  const needsContent = !restored.has('extract');
  if (needsContent) {
    const content = await captures.pipeline.content({ capture_id: s.capture.id });
    s.content = {
      mime: mimeOf(content.content_type),
      bytes: content.bytes_base64 ? Buffer.from(content.bytes_base64, 'base64') : null,
      raw: content.raw_text,
    };
  } else s.content = { mime: null, bytes: null, raw: null };

  for (const [index, def] of defs.entries()) {
    if (restored.has(def.name)) continue;
    // A stage whose every later stage is restored is not needed again (fetch after extract).
    const later = defs.slice(index + 1);
    if (later.length > 0 && later.every((d) => restored.has(d.name))) continue;
    if (!def.applies(s)) continue;
    if (giveUp) return { stage: def.name, error: permanent(giveUp) };
    const startedAt = new Date();
    let result: StageResult<Record<string, unknown>> | null = null;
    for (let attempt = 1; ; attempt++) {
      try {
        const limit =
          def.name === 'extract'
            ? (deps.policy.extractTimeoutMs ?? deps.policy.stageTimeoutMs)
            : deps.policy.stageTimeoutMs;
        const turn = def.turn ? await def.turn(s) : null;
        try {
          result = await withTimeout(def.run(s, turn), limit, def.name);
        } finally {
          await turn?.release();
        }
        break;
      } catch (err) {
        const error = asStageError(err, def.name);
        if (!error.retryable || attempt >= deps.policy.stageAttempts) return { stage: def.name, error };
        log.debug({ stage: def.name, attempt, err: error.message }, 'stage attempt failed; retrying');
        await sleep(deps.policy.retryBackoffMs * attempt);
      }
    }
    const finishedAt = new Date();
    deps.onStage?.(def.name, finishedAt.getTime() - startedAt.getTime());
    await recordStage(captures, job, {
      name: def.name,
      started_at: startedAt.toISOString(),
      finished_at: finishedAt.toISOString(),
      model: result.model,
      input_digest: `sha256:${result.input_digest}`,
      output: result.output,
    });
  }
  s.metadata = {
    ...(s.extracted ? { format: s.extracted.format, ...s.extracted.metadata } : {}),
    ...(s.extracted?.notes.length ? { notes: s.extracted.notes } : {}),
    ...(s.fetched ? { fetched_url: s.fetched.url } : {}),
  };
  return null;
}
