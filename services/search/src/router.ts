import { serviceInfoApi } from '@kg/contracts';
import { defineRouter } from '@kg/trpc';
import { info } from './procedures/info';

/**
 * searchRouter. Wired and mounted now; its public operations answer 501 at the gateway
 * until they land (Semantic and hybrid search, context ranking and link suggestions).
 */
export const createSearchRouter = () => defineRouter(serviceInfoApi, { info });
