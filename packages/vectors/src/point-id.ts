import { createHash } from 'node:crypto';
import { TypeID } from 'typeid-js';

/** Namespace of the v5-style ids derived from non-TypeID strings (fixed forever). */
const NAMESPACE = Buffer.from('6f1c2b9e4d8a4b7c9e3f5a1d2c4b6e80', 'hex');

/**
 * Qdrant accepts only unsigned integers or UUIDs as point ids. A TypeID body is a
 * UUID (v7 for generated ids), so `node_01jd…` maps to that UUID; any other string
 * maps to a name-based UUIDv5 (SHA-1 over namespace + UTF-8 bytes). Deterministic,
 * so upserting the same id twice replaces the point. The TypeID prefix is not part
 * of the UUID: two TypeIDs with the same body but different prefixes would collide.
 */
export function toPointId(id: string): string {
  const fromTypeId = typeIdToUuid(id);
  return fromTypeId ?? uuidV5(id);
}

function typeIdToUuid(id: string): string | undefined {
  try {
    // typeid-js 1.x: the function `fromString` returns a branded string; the class parses.
    return TypeID.fromString(id).toUUID();
  } catch {
    return undefined;
  }
}

function uuidV5(name: string): string {
  const hash = createHash('sha1').update(NAMESPACE).update(name, 'utf8').digest();
  hash[6] = ((hash[6] ?? 0) & 0x0f) | 0x50;
  hash[8] = ((hash[8] ?? 0) & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
