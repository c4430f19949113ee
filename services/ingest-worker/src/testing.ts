import {
  PipelineCompleteInput,
  type Capture,
  type capturesApi,
  type graphApi,
  type Identity,
  type ProvenanceStage,
  type searchApi,
} from '@kg/contracts';
import type { ServiceClient, ServiceHandle } from '@kg/trpc';
import { TRPCClientError } from '@trpc/client';

/**
 * The captures pipeline and graph upsert, faked at the client boundary for the runner's unit
 * tests (services never import each other; the e2e and distributed suites run the real ones).
 * It keeps the contract's rules: claims by run and lease, idempotent stage records, 409 for a
 * run that is not current or does not hold the claim.
 */
interface Run {
  run_id: string;
  status: 'pending' | 'processing' | 'processed' | 'failed';
  lease_until: number;
  attempt: number;
  stages: ProvenanceStage[];
  queued_at: number;
}
export interface FakeCapture {
  tenant_id: string;
  capture: Capture;
  content: {
    content_type: string | null;
    filename: string | null;
    bytes_base64: string | null;
    raw_text: string | null;
  };
  run: Run;
  error: string | null;
  node_ids: string[];
  markdown: string | null;
  metadata: Record<string, unknown>;
  log: string[];
}

const conflict = () =>
  new TRPCClientError('conflict', {
    result: { error: { message: 'conflict', code: -32009, data: { problem: { status: 409, title: 'Conflict' } } } },
  } as never);
/** What the captures service answers an input its contract refuses. */
export const invalidRequest = (detail: string) =>
  new TRPCClientError('The request failed validation', {
    result: {
      error: {
        message: 'The request failed validation',
        code: -32600,
        data: { problem: { status: 400, title: 'Invalid request', detail } },
      },
    },
  } as never);

export function fakeServices(now: () => number = Date.now) {
  const captures = new Map<string, FakeCapture>();
  const nodes = new Map<
    string,
    { id: string; capture_id: string; title: string; content: string; summary: string; tags: string[]; writes: number }
  >();
  const requeued: string[] = [];
  /** What search answers as similar (links.similar), and the proposals graph recorded per capture. */
  const similar: Array<{ id: string; score: number }> = [];
  const similarCalls: Array<{ node_id: string; exclude_ids: string[] }> = [];
  const proposals = new Map<string, Array<{ id: string; score: number }>>();
  /** The PARA item each capture asked graph for (a bookmark import's folder), and the items so made. */
  const paraRequests = new Map<string, { category: string; label: string }>();
  const paraItems = new Map<string, string>();

  const held = (c: FakeCapture, runId: string) => {
    if (c.run.run_id !== runId || c.run.status !== 'processing') throw conflict();
  };

  const pipeline: ServiceClient<typeof capturesApi>['pipeline'] = {
    async claim({ capture_id, run_id, lease_ms }) {
      const c = captures.get(capture_id);
      if (!c) return { claimed: false, reason: 'not_found', lease_until: null };
      if (c.run.run_id !== run_id) return { claimed: false, reason: 'superseded', lease_until: null };
      if (c.run.status === 'processed' || c.run.status === 'failed')
        return { claimed: false, reason: c.run.status, lease_until: null };
      if (c.run.status === 'processing' && c.run.lease_until > now())
        return { claimed: false, reason: 'leased', lease_until: new Date(c.run.lease_until).toISOString() };
      c.run.status = 'processing';
      c.run.attempt++;
      c.run.lease_until = now() + (lease_ms ?? 120_000);
      c.log.push('processing_started');
      return {
        claimed: true,
        capture: { ...c.capture, status: 'processing' },
        lease_until: new Date(c.run.lease_until).toISOString(),
        attempt: c.run.attempt,
        completed_stages: c.run.stages.map((s) => ({ name: s.name, output: s.output })),
      };
    },
    async content({ capture_id }) {
      return captures.get(capture_id)!.content;
    },
    async recordStage({ capture_id, run_id, stage }) {
      const c = captures.get(capture_id)!;
      held(c, run_id);
      if (c.run.stages.some((s) => s.name === stage.name)) return { recorded: false };
      c.run.stages.push(stage);
      c.log.push(`stage_completed:${stage.name}`);
      return { recorded: true };
    },
    async complete(input) {
      const parsed = PipelineCompleteInput.safeParse(input);
      if (!parsed.success) throw invalidRequest(parsed.error.issues.map((i) => i.message).join('; '));
      const { capture_id, run_id, node_ids, markdown, metadata } = input;
      const c = captures.get(capture_id)!;
      held(c, run_id);
      c.run.status = 'processed';
      c.node_ids = node_ids;
      c.markdown = markdown ?? null;
      c.metadata = { ...c.metadata, ...metadata };
      c.log.push('processed');
      return { ...c.capture, status: 'processed', node_ids };
    },
    async fail({ capture_id, run_id, stage, error, final }) {
      const c = captures.get(capture_id)!;
      held(c, run_id);
      c.run.status = final ? 'failed' : 'pending';
      c.run.lease_until = 0;
      c.error = `${stage}: ${error}`;
      c.log.push(final ? `failed:${stage}` : `stage_failed:${stage}`);
      return { ...c.capture, status: final ? 'failed' : 'pending', error: c.error };
    },
    async waiting({ runs }) {
      let touched = 0;
      for (const r of runs) {
        const c = captures.get(r.capture_id);
        if (c && c.tenant_id === r.tenant_id && c.run.run_id === r.run_id && c.run.status === 'pending') {
          c.run.queued_at = now();
          touched++;
        }
      }
      return { touched };
    },
    async stuck({ older_than_ms }) {
      const out = [...captures.values()].filter(
        (c) =>
          (c.run.status === 'processing' && c.run.lease_until + older_than_ms <= now()) ||
          (c.run.status === 'pending' && c.run.queued_at + older_than_ms <= now()),
      );
      return {
        captures: out.map((c) => ({
          tenant_id: c.tenant_id,
          capture_id: c.capture.id,
          run_id: c.run.run_id,
          status: c.run.status as 'pending' | 'processing',
        })),
      };
    },
    async requeue({ capture_id }) {
      const c = captures.get(capture_id)!;
      if (c.run.status === 'processed' || c.run.status === 'failed') return { requeued: false, run_id: null };
      requeued.push(capture_id);
      c.log.push('requeued');
      return { requeued: true, run_id: c.run.run_id };
    },
  };

  const capturesHandle: ServiceHandle<typeof capturesApi> = {
    service: 'captures',
    as: (_who: Identity | null) => ({ pipeline }) as unknown as ServiceClient<typeof capturesApi>,
  };
  const graphHandle: ServiceHandle<typeof graphApi> = {
    service: 'graph',
    as: (who: Identity | null) =>
      ({
        captures: {
          upsertNode: async (input: {
            capture_id: string;
            title: string;
            content: string;
            summary: string;
            tags: string[];
          }) => {
            const id = `node_${input.capture_id.slice(4)}`;
            const before = nodes.get(id);
            nodes.set(id, { id, ...input, writes: (before?.writes ?? 0) + 1 });
            return {
              node: {
                id,
                title: input.title,
                summary: input.summary,
                body_markdown: input.content,
                tags: input.tags,
                para_item_ids: [],
                para_assignments: [],
                status: 'raw',
                created_at: new Date().toISOString(),
                updated_at: new Date().toISOString(),
              },
              created: !before,
              tenant: who?.tenantId,
            };
          },
        },
        proposals: {
          record: async (input: {
            capture_id: string;
            links: Array<{ id: string; score: number }>;
            para_item?: { category: string; label: string } | null;
          }) => {
            proposals.set(input.capture_id, input.links);
            let para_item = null;
            if (input.para_item) {
              paraRequests.set(input.capture_id, input.para_item);
              const key = input.para_item.label.toLowerCase();
              const created = !paraItems.has(key);
              if (created) paraItems.set(key, `para_01jd8x6q1bf5r3v2m9w7k4t${String(paraItems.size).padStart(3, '0')}`);
              para_item = { id: paraItems.get(key)!, label: input.para_item.label, created, assigned: true };
            }
            return {
              ...(para_item ? { para_item } : {}),
              proposals: input.links.map((l, i) => ({
                id: `prop_01jd8x6q1bf5r3v2m9w7k4t${String(i).padStart(3, '0')}`,
                kind: 'link',
                target_id: l.id,
                score: l.score,
                model: 'test-embedder',
                reason: `similar (${l.score})`,
              })),
            };
          },
        },
      }) as unknown as ServiceClient<typeof graphApi>,
  };
  const searchHandle: ServiceHandle<typeof searchApi> = {
    service: 'search',
    as: () =>
      ({
        links: {
          similar: async (input: { node_id: string; exclude_ids?: string[] }) => {
            const exclude = input.exclude_ids ?? [];
            similarCalls.push({ node_id: input.node_id, exclude_ids: exclude });
            return {
              hits: similar.filter((h) => h.id !== input.node_id && !exclude.includes(h.id)),
              model: 'test-embedder',
            };
          },
        },
      }) as unknown as ServiceClient<typeof searchApi>,
  };

  let seq = 0;
  return {
    captures,
    nodes,
    requeued,
    capturesHandle,
    graphHandle,
    searchHandle,
    similar,
    similarCalls,
    proposals,
    paraRequests,
    paraItems,
    /** Adds a pending capture with a queued run; returns the job the queued event would carry. */
    add(over: Partial<Capture> & { raw_text?: string | null; bytes?: Buffer; mime?: string }) {
      seq++;
      const id = `cap_01jd8x6q1bf5r3v2m9w7k4t${String(seq).padStart(3, '0')}`;
      const run_id = `run_01jd8x6q1bf5r3v2m9w7k4t${String(seq).padStart(3, '0')}`;
      const { raw_text, bytes, mime, ...fields } = over;
      const capture: Capture = {
        id,
        title: 'A note',
        url: null,
        content_type: 'note',
        why: null,
        selected_text: null,
        source: 'api',
        status: 'pending',
        metadata: {},
        node_ids: [],
        error: null,
        created_at: new Date().toISOString(),
        updated_at: new Date().toISOString(),
        ...fields,
      };
      captures.set(id, {
        tenant_id: 'tnt_01jd8x6q1bf5r3v2m9w7k4t0za',
        capture,
        content: {
          content_type: bytes ? (mime ?? 'application/octet-stream') : raw_text ? 'text/plain; charset=utf-8' : null,
          filename: bytes ? 'upload' : null,
          bytes_base64: bytes ? bytes.toString('base64') : null,
          raw_text: raw_text ?? null,
        },
        run: { run_id, status: 'pending', lease_until: 0, attempt: 0, stages: [], queued_at: now() },
        error: null,
        node_ids: [],
        markdown: null,
        metadata: {},
        log: [],
      });
      return { tenant_id: 'tnt_01jd8x6q1bf5r3v2m9w7k4t0za', capture_id: id, run_id };
    },
  };
}
