import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { TYPES_FILE, typesText } from './generate-types.ts';

describe('generated API types', () => {
  it('src/openapi.ts matches the API description (run `npm run generate -w @kg/sdk` when this fails)', async () => {
    expect(readFileSync(TYPES_FILE, 'utf8') === (await typesText())).toBe(true);
  });
});
