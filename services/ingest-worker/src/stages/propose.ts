import type { RunJob, RunnerDeps, RunState } from '../run-types';
import { asStageError, systemIdentity } from '../captures-calls';
import { importOf, importParaItem } from '../import-metadata';
import { digest, type StageResult } from './result';

/** Similar nodes asked of search (graph keeps the best 5 at or above its proposal threshold). */
export const SIMILAR_ASKED = 10;
/** The suggestions procedure takes at most this much text (the model reads its first 256 tokens anyway). */
const MAX_TEXT = 10_000;

export const proposeModel = (embeddingModel: string) =>
  `propose@1 (links: search suggestions, ${embeddingModel} cosine; PARA item: keyword ts_rank_cd)`;

/** The node's text as stage 5 sees it: its title, summary and the start of its body (recorded as the stage's input digest). */
export const proposalText = (title: string, summary: string, markdown: string) =>
  [title, summary, markdown]
    .filter((t) => t.trim() !== '')
    .join('\n\n')
    .slice(0, MAX_TEXT);

/**
 * Stage 5: proposes links and a PARA item for the capture's node. The search service reads the
 * node from graph, embeds it as its indexer does (one embedding for both: its cache answers the
 * second) and answers the tenant's most similar nodes (the node need not be indexed yet; the node
 * itself is left out); graph filters them, matches the node against the active
 * PARA items and records the proposals, pending until a person accepts or dismisses them
 * (replacing the node's earlier pending ones).
 *
 * A bookmark imported with `para` asks for its innermost folder as the node's PARA item (a
 * resource): graph then finds or makes that item and assigns the node to it instead of
 * proposing one, through the same call (one path for the node's PARA item).
 */
export async function propose(
  deps: RunnerDeps,
  job: RunJob,
  s: RunState,
): Promise<StageResult<Record<string, unknown>>> {
  const who = systemIdentity(job.tenant_id);
  const nodeId = s.nodeIds![0]!;
  const text = proposalText(s.capture.title, s.summary!.summary, s.extracted!.markdown);
  const similar = await deps.search
    .as(who)
    .links.similar({ node_id: nodeId, limit: SIMILAR_ASKED })
    .catch((err: unknown) => {
      throw asStageError(err, 'search');
    });
  const paraItem = importParaItem(importOf(s.capture.metadata));
  const { proposals, para_item: assigned } = await deps.graph
    .as(who)
    .proposals.record({
      capture_id: job.capture_id,
      links: similar.hits,
      link_model: similar.model,
      ...(paraItem ? { para_item: paraItem } : {}),
    })
    .catch((err: unknown) => {
      throw asStageError(err, 'graph');
    });
  return {
    model: proposeModel(similar.model),
    input_digest: digest({ node_id: nodeId, text, ...(paraItem ? { para_item: paraItem } : {}) }),
    output: {
      node_id: nodeId,
      ...(assigned ? { para_item: assigned } : {}),
      candidates: similar.hits.length,
      proposals: proposals.map((p) => ({
        id: p.id,
        kind: p.kind,
        target_id: p.target_id,
        score: p.score,
        model: p.model,
        reason: p.reason,
      })),
    },
  };
}
