import type { Schemas } from '../../api/client';

export type Import = Schemas['Import'];

export { formatBytes, isFinal, percentRead } from '@kg/sdk/import-progress';
