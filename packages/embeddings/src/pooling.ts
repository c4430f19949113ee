/**
 * Mean of the first `length` token vectors of one sequence (the unpadded ones: the attention
 * mask is 1 exactly there), scaled to unit length. `hidden` is [tokens × dimensions], row-major.
 */
export function meanPoolNormalised(hidden: Float32Array, length: number, dimensions: number): Float32Array {
  const out = new Float32Array(dimensions);
  for (let t = 0; t < length; t++) {
    for (let d = 0; d < dimensions; d++) out[d]! += hidden[t * dimensions + d]!;
  }
  let norm = 0;
  for (let d = 0; d < dimensions; d++) {
    out[d]! /= length;
    norm += out[d]! * out[d]!;
  }
  norm = Math.sqrt(norm) || 1;
  for (let d = 0; d < dimensions; d++) out[d]! /= norm;
  return out;
}
