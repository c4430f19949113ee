import { createLocalEmbedder, LOCAL_MODEL } from '@kg/embeddings/local';
import { summarize } from '../graph/stats';

/**
 * The raw throughput of the embedding model the pipeline depends on (packages/embeddings'
 * local provider, the default), measured in this process on texts like the benchmark's notes,
 * one at a time as the search service embeds them: the limit the pipeline cannot beat, since
 * every capture is embedded once (stage 5's similarity request and the search index share search's
 * embedding cache).
 */
export async function modelThroughput(n: number, text: (i: number) => string) {
  const embedder = await createLocalEmbedder();
  for (let i = 0; i < 5; i++) await embedder.embed([text(n + i)], 'passage'); // warm-up
  const ms: number[] = [];
  const t0 = performance.now();
  for (let i = 0; i < n; i++) {
    const a = performance.now();
    await embedder.embed([text(i)], 'passage');
    ms.push(performance.now() - a);
  }
  const seconds = (performance.now() - t0) / 1000;
  await embedder.close();
  return {
    model: embedder.model ?? LOCAL_MODEL,
    n,
    texts_per_second: Number((n / seconds).toFixed(1)),
    embed_ms: summarize(ms),
  };
}
