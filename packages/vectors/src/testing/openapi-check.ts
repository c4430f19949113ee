import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020';
import { toJsonSchema, type Schema } from './openapi-schema';

interface MediaType {
  schema?: Schema;
}
interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  schema?: Schema;
}
interface Operation {
  parameters?: Parameter[];
  requestBody?: { required?: boolean; content: Record<string, MediaType> };
  responses: Record<string, { content?: Record<string, MediaType> }>;
}
interface OpenApiDocument {
  openapi: string;
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema> };
}

export interface ExchangeToCheck {
  method: string;
  /** Path plus query string, as received. */
  url: string;
  requestBody: unknown;
  status: number;
  contentType: string;
  responseBody: unknown;
}

/** Qdrant's published OpenAPI document, copied into the repository (Apache-2.0, see NOTICE). */
export function qdrantOpenApiLocation(): { path: string } {
  return { path: fileURLToPath(new URL('./qdrant-openapi-v1.19.json', import.meta.url)) };
}

/**
 * Checks HTTP exchanges against an OpenAPI 3.0 document: the method + path template
 * must be declared, query parameters declared and well-typed, the JSON request body
 * valid against the operation's requestBody schema and the response body valid
 * against the schema declared for its status. Returns messages; empty means valid.
 */
export class OpenApiChecker {
  readonly #doc: OpenApiDocument;
  readonly #ajv: Ajv2020;
  readonly #compiled = new Map<string, ValidateFunction>();
  readonly #templates: Array<{ template: string; pattern: RegExp; params: number }>;

  constructor(path: string) {
    this.#doc = JSON.parse(readFileSync(path, 'utf8')) as OpenApiDocument;
    if (!this.#doc.openapi.startsWith('3.0')) throw new Error(`expected OpenAPI 3.0.x, got ${this.#doc.openapi}`);
    const warnings: string[] = [];
    const collect = (...args: unknown[]) => warnings.push(args.map(String).join(' '));
    this.#ajv = new Ajv2020({
      strict: true,
      allowUnionTypes: true,
      logger: { log: collect, warn: collect, error: collect },
    });
    addFormats(this.#ajv);
    const defs = Object.fromEntries(
      Object.entries(this.#doc.components.schemas).map(([name, s]) => [name, toJsonSchema(s)]),
    );
    this.#ajv.addSchema({ $id: 'qdrant', $defs: defs });
    this.#ajv.getSchema('qdrant');
    if (warnings.length > 0) throw new Error(`ajv strict-mode warnings:\n${warnings.join('\n')}`);
    // Literal segments win over templates: /points/delete before /points/{id}.
    this.#templates = Object.keys(this.#doc.paths)
      .map((template) => ({
        template,
        params: (template.match(/\{/g) ?? []).length,
        pattern: new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{[^}]+\\?\}/g, '[^/]+')}$`),
      }))
      .sort((a, b) => a.params - b.params);
  }

  /** The declared template for a method + concrete path, if any. */
  findTemplate(method: string, pathname: string): string | undefined {
    const verb = method.toLowerCase();
    return this.#templates.find((t) => t.pattern.test(pathname) && this.#doc.paths[t.template]?.[verb])?.template;
  }

  checkRequest(method: string, url: string, body: unknown): string[] {
    const { pathname, searchParams } = new URL(url, 'http://fake');
    const template = this.findTemplate(method, pathname);
    if (!template) return [`${method} ${pathname}: no such operation in the OpenAPI document`];
    const op = this.#operation(method, template);
    const at = `${method} ${template}`;
    const errors: string[] = [];
    const queryParams = (op.parameters ?? []).filter((p) => p.in === 'query');
    for (const [name, raw] of searchParams) {
      const param = queryParams.find((p) => p.name === name);
      if (!param) errors.push(`${at}: undeclared query parameter ${name}`);
      else if (param.schema) errors.push(...this.#validate(`${at} ?${name}`, param.schema, coerce(raw, param.schema)));
    }
    for (const p of queryParams)
      if (p.required && !searchParams.has(p.name)) errors.push(`${at}: missing query parameter ${p.name}`);
    const schema = op.requestBody?.content['application/json']?.schema;
    if (body === undefined) {
      if (op.requestBody?.required) errors.push(`${at}: request body required`);
    } else if (!schema) {
      errors.push(`${at}: sends a body the operation does not declare`);
    } else {
      errors.push(...this.#validate(`${at} request body`, schema, body));
    }
    return errors;
  }

  checkResponse(exchange: ExchangeToCheck): string[] {
    const { pathname } = new URL(exchange.url, 'http://fake');
    const template = this.findTemplate(exchange.method, pathname);
    if (!template) return [];
    const at = `${exchange.method} ${template} ${exchange.status}`;
    const { responses } = this.#operation(exchange.method, template);
    const status = String(exchange.status);
    const declared = responses[status] ?? responses[`${status[0]}XX`] ?? responses.default;
    if (!declared) return [`${at}: status not declared`];
    if (!declared.content) return [];
    const media = declared.content[exchange.contentType.split(';')[0]!.trim()];
    if (!media) return [`${at}: content type ${exchange.contentType} not declared`];
    if (!media.schema) return [];
    // 3.0 envelopes list result/status/time but require none; a fake must send all three.
    const strict = status.startsWith('2') ? requireEnvelope(media.schema) : media.schema;
    return this.#validate(`${at} response body`, strict, exchange.responseBody);
  }

  #operation(method: string, template: string): Operation {
    const op = this.#doc.paths[template]?.[method.toLowerCase()];
    if (!op) throw new Error(`no operation ${method} ${template}`);
    return op;
  }

  #validate(where: string, schema: Schema, value: unknown): string[] {
    const key = JSON.stringify(schema);
    let validate = this.#compiled.get(key);
    if (!validate) {
      validate = this.#ajv.compile(toJsonSchema(schema));
      this.#compiled.set(key, validate);
    }
    if (validate(value)) return [];
    const details = (validate.errors ?? [])
      .slice(0, 6)
      .map((e) => `${e.instancePath || '/'} ${e.message ?? ''} ${JSON.stringify(e.params)}`);
    return [`${where} violates the schema: ${details.join('; ')}`];
  }
}

function requireEnvelope(schema: Schema): Schema {
  const props = schema.properties;
  if (!props || !('result' in props && 'status' in props && 'time' in props)) return schema;
  return { ...schema, required: ['result', 'status', 'time'] };
}

function coerce(raw: string, schema: Schema): unknown {
  if (schema.type === 'boolean') return raw === 'true' ? true : raw === 'false' ? false : raw;
  if (schema.type === 'integer' || schema.type === 'number') return /^-?\d+(\.\d+)?$/.test(raw) ? Number(raw) : raw;
  return raw;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The formats the document uses; the number ones check their ranges. */
function addFormats(ajv: Ajv2020): void {
  const int = (min: number, max: number) => ({
    type: 'number' as const,
    validate: (n: number) => Number.isInteger(n) && n >= min && n <= max,
  });
  ajv.addFormat('uint', int(0, Number.MAX_SAFE_INTEGER));
  ajv.addFormat('uint64', int(0, 2 ** 64 - 1));
  ajv.addFormat('uint32', int(0, 2 ** 32 - 1));
  ajv.addFormat('uint8', int(0, 255));
  ajv.addFormat('int64', int(-(2 ** 63), 2 ** 63 - 1));
  ajv.addFormat('float', { type: 'number', validate: Number.isFinite });
  ajv.addFormat('double', { type: 'number', validate: Number.isFinite });
  ajv.addFormat('uuid', UUID);
  ajv.addFormat('date-time', (s: string) => !Number.isNaN(Date.parse(s)));
  // Not produced or consumed by the adapter; accepted as any string.
  for (const name of ['partial-date-time', 'binary', 'uri']) ajv.addFormat(name, true);
}
