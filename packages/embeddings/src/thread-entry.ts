// Entry of the local embedder's worker thread (thread.ts starts it): the model and its
// tokenizer load here, and every embedding runs here, one call after another, so the
// service's event loop never waits for a forward pass (onnxruntime-node's `run` is
// synchronous on the thread that calls it).
import { parentPort, workerData } from 'node:worker_threads';
import { createLocalEmbedder, type LocalEmbedderOptions } from './local';
import type { EmbedKind } from './port';
import type { ThreadAnswer, ThreadRequest } from './thread';

const port = parentPort!;
try {
  const embedder = await createLocalEmbedder(workerData as LocalEmbedderOptions);
  port.on('message', (m: ThreadRequest) => {
    if (m.type === 'close') {
      void embedder.close().finally(() => port.close());
      return;
    }
    embedder.embed(m.texts, m.kind as EmbedKind).then(
      (vectors) => port.postMessage({ type: 'vectors', id: m.id, vectors } satisfies ThreadAnswer),
      (err: unknown) =>
        port.postMessage({ type: 'failed', id: m.id, message: (err as Error).message } satisfies ThreadAnswer),
    );
  });
  port.postMessage({ type: 'ready', model: embedder.model, dimensions: embedder.dimensions } satisfies ThreadAnswer);
} catch (err) {
  port.postMessage({ type: 'unavailable', message: (err as Error).message } satisfies ThreadAnswer);
}
