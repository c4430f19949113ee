// Entry of the local embedder's worker thread (thread.ts starts it): the model and its
// tokenizer load here, and every embedding runs here, one call after another, so the
// service's event loop never waits for a forward pass (onnxruntime-node's `run` is
// synchronous on the thread that calls it).
import { setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { createLocalEmbedder } from './local';
import type { EmbedKind } from './port';
import type { ThreadAnswer, ThreadedEmbedderOptions, ThreadRequest } from './thread';

const port = parentPort!;
try {
  const { nice, ...options } = workerData as ThreadedEmbedderOptions;
  // On Linux a thread has its own nice value, and 0 names the calling thread; elsewhere it
  // would name the whole process, so the thread stays as it is there.
  if (nice && process.platform === 'linux') setPriority(0, nice);
  const embedder = await createLocalEmbedder(options);
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
