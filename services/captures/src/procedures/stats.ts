import type { capturesApi } from '@kg/contracts';
import type { Handlers } from '@kg/trpc';

/**
 * Capture counts of a tenant. Captures cannot be submitted until the captures feature
 * lands (POST /captures answers 501), so every tenant holds none: the true counts are 0.
 * The captures issue replaces this with counts from the captures schema.
 */
export const stats: Handlers<typeof capturesApi>['stats'] = async () => ({ total: 0, pending: 0, processing: 0, failed: 0 });
