import { describe, expect, it } from 'vitest';
import { TypeID, typeid } from 'typeid-js';
import { toPointId } from './point-id';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('toPointId', () => {
  it('maps a TypeID to the UUID its body encodes', () => {
    const id = typeid('node');
    const uuid = toPointId(id.toString());
    expect(uuid).toBe(id.toUUID());
    expect(uuid[14]).toBe('7');
    expect(TypeID.fromUUID('node', uuid).toString()).toBe(id.toString());
  });

  it('maps any other string to a deterministic UUIDv5', () => {
    for (const id of ['doc:42', 'NODE_01jd8x6q1bf5r3v2m9w7k4t0za', 'ä/β 🙂', 'x'.repeat(500)]) {
      const uuid = toPointId(id);
      expect(uuid).toMatch(UUID);
      expect(uuid[14]).toBe('5');
      expect(['8', '9', 'a', 'b']).toContain(uuid[19]);
      expect(toPointId(id)).toBe(uuid);
    }
    expect(toPointId('doc:1')).not.toBe(toPointId('doc:2'));
  });

  it('gives distinct UUIDs for distinct TypeIDs', () => {
    const ids = Array.from({ length: 200 }, () => typeid('node').toString());
    expect(new Set(ids.map(toPointId)).size).toBe(200);
  });
});
