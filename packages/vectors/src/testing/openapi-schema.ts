/** A schema object as found in the document (OpenAPI 3.0) or produced for ajv (2020-12). */
export interface Schema {
  [keyword: string]: unknown;
  type?: string | string[];
  properties?: Record<string, Schema>;
}

const COMPONENT = '#/components/schemas/';
const STRUCTURAL = ['$ref', 'type', 'enum', 'anyOf', 'oneOf', 'allOf', 'properties', 'items', 'not'];

/**
 * OpenAPI 3.0 schema → JSON Schema 2020-12 for ajv:
 * - `$ref: #/components/schemas/X` → `qdrant#/$defs/X` (the components live there);
 * - `nullable: true` beside a type → `type: [t, 'null']` (and null added to an enum);
 *   a lone `{ nullable: true }` (the document's `anyOf: [{$ref}, {nullable: true}]`
 *   idiom for Option<T>) → `{ type: 'null' }`. Read literally, 3.0 ignores `nullable`
 *   without `type`, so that branch would accept anything and switch off validation of
 *   every optional field;
 * - `example` dropped (not a JSON Schema keyword);
 * - closed world: an object schema with `properties` and no `additionalProperties`
 *   rejects other keys, so a misspelt or invented field fails instead of passing.
 */
export function toJsonSchema(node: Schema): Schema {
  const ref = node.$ref;
  if (typeof ref === 'string') {
    if (!ref.startsWith(COMPONENT)) throw new Error(`unsupported $ref ${ref}`);
    return { $ref: `qdrant#/$defs/${ref.slice(COMPONENT.length)}` };
  }
  const { nullable, example: _example, ...rest } = node;
  const out: Schema = {};
  for (const [key, value] of Object.entries(rest)) out[key] = convertKeyword(key, value);
  if (out.properties && out.additionalProperties === undefined) out.additionalProperties = false;
  if (nullable !== true) return out;
  if (!STRUCTURAL.some((k) => k in out)) return { ...out, type: 'null' };
  if (typeof out.type === 'string' && !('anyOf' in out || 'oneOf' in out)) {
    return {
      ...out,
      type: [out.type, 'null'],
      ...(Array.isArray(out.enum) ? { enum: [...(out.enum as unknown[]), null] } : {}),
    };
  }
  return { anyOf: [out, { type: 'null' }] };
}

function convertKeyword(key: string, value: unknown): unknown {
  switch (key) {
    case 'properties':
      return Object.fromEntries(Object.entries(value as Record<string, Schema>).map(([k, v]) => [k, toJsonSchema(v)]));
    case 'items':
    case 'not':
      return toJsonSchema(value as Schema);
    case 'additionalProperties':
      return typeof value === 'boolean' ? value : toJsonSchema(value as Schema);
    case 'anyOf':
    case 'oneOf':
    case 'allOf':
      return (value as Schema[]).map(toJsonSchema);
    default:
      return value;
  }
}
