import { capturesApi } from '@kg/contracts';
import { defineRouter } from '@kg/trpc';
import { info } from './procedures/info';
import { stats } from './procedures/stats';

/**
 * capturesRouter. Wired and mounted now; its public operations answer 501 at the gateway
 * until they land (Captures: submission, upload, lifecycle, activity and provenance).
 */
export const createCapturesRouter = () => defineRouter(capturesApi, { info, stats });
