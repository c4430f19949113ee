import { serviceInfoApi } from '@kg/contracts';
import { defineRouter } from '@kg/trpc';
import { info } from './procedures/info';

/**
 * ingestWorkerRouter. Wired and mounted now; its public operations answer 501 at the gateway
 * until they land (The asynchronous AI pipeline that turns captures into graph content).
 */
export const createIngestWorkerRouter = () => defineRouter(serviceInfoApi, { info });
