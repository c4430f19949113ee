import { z } from 'zod';

/**
 * Identifiers are TypeIDs: a type prefix, an underscore, and a 26-character
 * sortable base32 body (a UUIDv7). Clients treat them as opaque strings.
 */
export const ID_PREFIXES = {
  tenant: 'tnt',
  user: 'usr',
  node: 'node',
  para: 'para',
  capture: 'cap',
  apiKey: 'key',
  event: 'evt',
  refreshToken: 'rtk',
  run: 'run',
  activity: 'act',
  paraJob: 'job',
  proposal: 'prop',
  webhook: 'wh',
  webhookDelivery: 'whd',
  import: 'imp',
} as const;

export type IdKind = keyof typeof ID_PREFIXES;

const BODY = '[0-7][0-9a-hjkmnp-tv-z]{25}';

export function idPattern(kind: IdKind): RegExp {
  return new RegExp(`^${ID_PREFIXES[kind]}_${BODY}$`);
}

/** True when `value` is a well-formed id of that kind. Malformed ids are treated as unknown (404). */
export function isId(kind: IdKind, value: string): boolean {
  return idPattern(kind).test(value);
}

export const idSchema = (kind: IdKind) =>
  z.string().regex(idPattern(kind), `must be a ${ID_PREFIXES[kind]}_ identifier`);

export const NodeId = idSchema('node').meta({
  description: 'Node identifier, e.g. node_01jd…',
  example: 'node_01jd8x6q1bf5r3v2m9w7k4t0za',
});
export const ParaItemId = idSchema('para').meta({ description: 'PARA item identifier, e.g. para_01jd…' });
export const CaptureId = idSchema('capture');
export const ApiKeyId = idSchema('apiKey');
export const TenantId = idSchema('tenant');
