import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { TYPES_FILE, typesText } from '../../clients/sdk/src/generate-types';
import { OPENAPI_FILE, openApiText } from './openapi';

describe("the dashboard's copy of the OpenAPI document and the SDK's types", () => {
  it('matches the gateway route table (run `npm run dashboard:api` after changing a route)', async () => {
    const current = openApiText();
    expect(readFileSync(OPENAPI_FILE, 'utf8')).toBe(current);
    expect(readFileSync(TYPES_FILE, 'utf8')).toBe(await typesText(current));
  });
});
