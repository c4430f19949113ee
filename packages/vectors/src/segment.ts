import type { VectorFilter, VectorPayload } from './port';
import { matchesValue } from './rules';
import { createDotStore, type DotStore } from './dot-kernel';

/** A scored slot of a segment, before it becomes a hit. */
export interface SlotHit {
  slot: number;
  score: number;
}

/**
 * The points of one tenant in one collection, laid out for scanning: every vector in one
 * contiguous store (dot-kernel.ts: WebAssembly SIMD when the dimension allows), its norm
 * beside it, ids and payloads by slot. A deleted point frees its slot for the next insert;
 * the store doubles when full. A search scans the tenant's slots only (the tenant filter costs
 * nothing) and keeps the best `limit` in a bounded heap instead of sorting every hit.
 */
export class Segment {
  #store: DotStore;
  #norms: Float32Array;
  readonly ids: Array<string | null> = [];
  readonly payloads: Array<VectorPayload | null> = [];
  readonly #slots = new Map<string, number>();
  readonly #free: number[] = [];

  constructor(readonly dimensions: number) {
    this.#store = createDotStore(dimensions, 64);
    this.#norms = new Float32Array(64);
  }

  get size(): number {
    return this.#slots.size;
  }

  has(id: string): boolean {
    return this.#slots.has(id);
  }

  /** The stored vector of a slot (a view into the store: copy it before the segment changes). */
  vector(slot: number): Float32Array {
    return this.#store.get(slot);
  }

  put(id: string, vector: Float32Array, payload: VectorPayload): void {
    let slot = this.#slots.get(id);
    if (slot === undefined) {
      slot = this.#free.pop() ?? this.ids.length;
      if (slot === this.ids.length) {
        this.ids.push(null);
        this.payloads.push(null);
        this.#grow(this.ids.length);
      }
      this.#slots.set(id, slot);
    }
    this.#store.set(slot, vector);
    this.#norms[slot] = magnitude(vector);
    this.ids[slot] = id;
    this.payloads[slot] = payload;
  }

  /** Replaces the payload of a stored id (its vector stays); false when the id is not stored. */
  setPayload(id: string, payload: VectorPayload): boolean {
    const slot = this.#slots.get(id);
    if (slot === undefined) return false;
    this.payloads[slot] = payload;
    return true;
  }

  /** The slot of a stored id. */
  slotOf(id: string): number | undefined {
    return this.#slots.get(id);
  }

  remove(id: string): boolean {
    const slot = this.#slots.get(id);
    if (slot === undefined) return false;
    this.#slots.delete(id);
    this.ids[slot] = null;
    this.payloads[slot] = null;
    this.#free.push(slot);
    return true;
  }

  /** Live slots whose payload matches every key of the filter but `tenant_id` (the segment is the tenant). */
  *matching(filter: VectorFilter): Generator<number> {
    const keys = Object.entries(filter).filter(([key]) => key !== 'tenant_id');
    for (let slot = 0; slot < this.ids.length; slot += 1) {
      const payload = this.payloads[slot];
      if (payload && keys.every(([key, value]) => matchesValue(payload[key], value))) yield slot;
    }
  }

  /** The best `limit` matching slots by cosine (score desc, then id asc), at or above `threshold`. */
  search(query: Float32Array, filter: VectorFilter, limit: number, threshold = -Infinity): SlotHit[] {
    const keys = Object.entries(filter).filter(([key]) => key !== 'tenant_id');
    const qNorm = magnitude(query);
    const dots = this.#store.dots(query, this.ids.length);
    const heap = new TopK<SlotHit>(limit, (a, b) => this.#worse(a, b));
    for (let slot = 0; slot < this.ids.length; slot += 1) {
      const payload = this.payloads[slot];
      if (!payload) continue;
      if (keys.length > 0 && !keys.every(([key, value]) => matchesValue(payload[key], value))) continue;
      const norm = this.#norms[slot]!;
      const score = norm === 0 || qNorm === 0 ? 0 : Math.max(-1, Math.min(1, dots[slot]! / (norm * qNorm)));
      if (score < threshold) continue;
      heap.offer({ slot, score });
    }
    return heap.sorted();
  }

  /** Whether hit `a` ranks below `b` (lower score, or equal score and a larger id). */
  #worse(a: SlotHit, b: SlotHit): boolean {
    if (a.score !== b.score) return a.score < b.score;
    return this.ids[a.slot]! > this.ids[b.slot]!;
  }

  #grow(slots: number): void {
    if (slots <= this.#norms.length) return;
    const capacity = Math.max(slots, this.#norms.length * 2);
    this.#store = this.#store.grow(capacity);
    const norms = new Float32Array(capacity);
    norms.set(this.#norms);
    this.#norms = norms;
  }
}

/** Keeps the best `limit` items offered (a binary min-heap on `worse`). */
class TopK<T> {
  readonly #items: T[] = [];
  constructor(
    readonly limit: number,
    readonly worse: (a: T, b: T) => boolean,
  ) {}

  offer(item: T): void {
    const h = this.#items;
    if (h.length < this.limit) {
      h.push(item);
      let i = h.length - 1;
      while (i > 0) {
        const parent = (i - 1) >> 1;
        if (!this.worse(h[i]!, h[parent]!)) break;
        [h[i], h[parent]] = [h[parent]!, h[i]!];
        i = parent;
      }
      return;
    }
    if (!this.worse(h[0]!, item)) return;
    h[0] = item;
    for (let i = 0; ;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < h.length && this.worse(h[l]!, h[m]!)) m = l;
      if (r < h.length && this.worse(h[r]!, h[m]!)) m = r;
      if (m === i) break;
      [h[i], h[m]] = [h[m]!, h[i]!];
      i = m;
    }
  }

  /** Best first. */
  sorted(): T[] {
    return [...this.#items].sort((a, b) => (this.worse(a, b) ? 1 : this.worse(b, a) ? -1 : 0));
  }
}

export function magnitude(v: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < v.length; i += 1) sum += v[i]! * v[i]!;
  return Math.sqrt(sum);
}
