import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { OPENAPI_FILE, SCHEMA_FILE, openApiText, schemaText } from './openapi';

describe("the dashboard's copy of the OpenAPI document", () => {
  it('matches the gateway route table (run `npm run dashboard:api` after changing a route)', async () => {
    const current = openApiText();
    expect(readFileSync(OPENAPI_FILE, 'utf8')).toBe(current);
    expect(readFileSync(SCHEMA_FILE, 'utf8')).toBe(await schemaText(current));
  });
});
