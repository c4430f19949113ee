import { capturesApi, notImplemented } from '@kg/contracts';
import { defineRouter } from '@kg/trpc';
import { info } from './procedures/info';
import { stats } from './procedures/stats';

const later = async (): Promise<never> => {
  throw notImplemented('Captures');
};

/** capturesRouter. The capture operations land with the captures issue (interim: 501). */
export const createCapturesRouter = () =>
  defineRouter(capturesApi, {
    info,
    stats,
    create: later,
    upload: later,
    check: later,
    list: later,
    get: later,
    content: later,
    retry: later,
    reingest: later,
    archive: later,
    unarchive: later,
    dismiss: later,
    delete: later,
    activity: later,
    provenance: later,
    pipeline: {
      claim: later,
      content: later,
      recordStage: later,
      complete: later,
      fail: later,
      stuck: later,
      requeue: later,
    },
  });
