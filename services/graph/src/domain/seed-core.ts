/**
 * What a seed view holds before PARA placements, compactly (typed arrays, positions in
 * `ids`): about a quarter of the answer's objects, so the walks kept per version stay small
 * and the answer's objects are made per request (cheap next to the walk). Read-only.
 */
export interface SeedCore {
  seedId: string | null;
  ids: string[];
  depths: Uint8Array;
  titles: string[];
  paraItemIds: string[][];
  connectionCounts: Int32Array;
  /** Each link once (the end with the lower id first), in result order then strongest first. */
  edgeSource: Int32Array;
  edgeTarget: Int32Array;
  edgeWeight: Float64Array;
  edgeType: string[];
  frontierIds: string[];
}

/** The view of a tenant without a node to start from. */
export const EMPTY_CORE: SeedCore = {
  seedId: null,
  ids: [],
  depths: new Uint8Array(0),
  titles: [],
  paraItemIds: [],
  connectionCounts: new Int32Array(0),
  edgeSource: new Int32Array(0),
  edgeTarget: new Int32Array(0),
  edgeWeight: new Float64Array(0),
  edgeType: [],
  frontierIds: [],
};

/** Nodes plus edges a core holds: its weight in the walks kept per version. */
export const weightOf = (core: SeedCore) => core.ids.length + core.edgeType.length;
