/**
 * The dashboard's copy of the public API description, generated from the gateway's route
 * table (no server needed, so the dashboard builds offline). The TypeScript types derived
 * from it live in one place, the SDK (clients/sdk/src/openapi.ts, written by
 * clients/sdk/src/generate-types.ts), which the dashboard imports as `@kg/sdk/openapi`:
 *
 *   npm run dashboard:api            # rewrite clients/dashboard/openapi.json, then clients/sdk/src/openapi.ts
 *
 * scripts/dashboard/openapi.test.ts fails when either committed file is stale.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createMemoryKv } from '@kg/kv';
import {
  API_PREFIX,
  buildOpenApiDocument,
  buildRoutes,
  createEventFeed,
  gatewayHttpSchema,
} from '@kg/service-gateway/module';

const root = new URL('../../clients/dashboard/', import.meta.url);
export const OPENAPI_FILE = fileURLToPath(new URL('openapi.json', root));

export function openApiText(): string {
  const routes = buildRoutes(createMemoryKv(), gatewayHttpSchema.parse({}), createEventFeed());
  return `${JSON.stringify(buildOpenApiDocument(routes, API_PREFIX), null, 2)}\n`;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  writeFileSync(OPENAPI_FILE, openApiText());
  console.log(`wrote ${OPENAPI_FILE}`);
}
