import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { WEBHOOK_EVENT_TYPES } from './webhook-events';

describe('webhook event types', () => {
  it('are those of the API description, in its order', () => {
    const doc = JSON.parse(
      readFileSync(fileURLToPath(new URL('../../dashboard/openapi.json', import.meta.url)), 'utf8'),
    ) as {
      components: { schemas: { WebhookEventType: { enum: string[] } } };
    };
    expect(WEBHOOK_EVENT_TYPES).toEqual(doc.components.schemas.WebhookEventType.enum);
  });
});
