import type { CursorStore } from '@kg/kv';
import type { Position } from '../store/views';
import type { GraphContext } from './context';
import type { GraphCache } from './graph-cache';

/** Per active direction, the position after the last edge served (null: from the start). */
export type NeighborCursor = { out?: Position | null; in?: Position | null };

/** What the graph views need: the service's context, the neighbours cursors and the graph cache. */
export interface ViewContext extends GraphContext {
  cursors: CursorStore<NeighborCursor>;
  graphs: GraphCache;
}
