/**
 * Tenant A's flood in a worker thread of its own: its 64 clients (thousands of fast 429s a
 * second once limits exist) must not queue behind, or delay, tenant B's timed requests in the
 * bench's main event loop. Started by `floodInWorker`; answers its Flooded summary on 'stop'.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { distinctQueries, flood, type Item, type Tenant } from './traffic';

const { tenant, clients, items } = workerData as { tenant: Tenant; clients: number; items: Item[] };
const running = flood(tenant, clients, distinctQueries(items, 'a'));
parentPort!.once('message', () => {
  void running.stop().then((result) => parentPort!.postMessage(result));
});
