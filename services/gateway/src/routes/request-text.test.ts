import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { createMemoryKv } from '@kg/kv';
import { gatewayHttpSchema } from '../config';
import { createEventFeed } from '../events/feed';
import { buildRoutes } from './index';

type Def = {
  type: string;
  shape?: Record<string, z.ZodType>;
  innerType?: z.ZodType;
  element?: z.ZodType;
  in?: z.ZodType;
  options?: z.ZodType[];
};
const defOf = (s: z.ZodType) => (s as unknown as { _zod: { def: Def } })._zod.def;

/** Every string-typed leaf of a schema, with its dotted path. */
function stringLeaves(schema: z.ZodType, path: string): Array<[string, z.ZodType]> {
  const def = defOf(schema);
  switch (def.type) {
    case 'string':
      return [[path, schema]];
    case 'object':
      return Object.entries(def.shape ?? {}).flatMap(([k, v]) => stringLeaves(v, path ? `${path}.${k}` : k));
    case 'array':
      return stringLeaves(def.element!, `${path}.0`);
    case 'optional':
    case 'nullable':
    case 'default':
    case 'prefault':
      return stringLeaves(def.innerType!, path);
    case 'pipe':
      return stringLeaves(def.in!, path);
    case 'union':
      return (def.options ?? []).flatMap((o) => stringLeaves(o, path));
    default:
      return [];
  }
}

const routes = buildRoutes(createMemoryKv(), gatewayHttpSchema.parse({}), createEventFeed());

describe('request schemas', () => {
  const leaves = routes.flatMap((r) =>
    (['params', 'query', 'body'] as const).flatMap((part) =>
      r[part]
        ? stringLeaves(r[part], part).map(([p, s]) => [`${r.method.toUpperCase()} ${r.path} ${p}`, s] as const)
        : [],
    ),
  );

  it('have string fields to check (the walk finds them)', () => {
    expect(leaves.length).toBeGreaterThan(30);
    expect(leaves.map(([name]) => name)).toEqual(
      expect.arrayContaining(['POST /nodes body.title', 'POST /nodes body.tags.0', 'GET /nodes/:id params.id']),
    );
  });

  it('refuse NUL in every string field (PostgreSQL cannot store it)', () => {
    const accepted = leaves.filter(([, s]) => s.safeParse('a\u0000b').success).map(([name]) => name);
    expect(accepted).toEqual([]);
  });
});
