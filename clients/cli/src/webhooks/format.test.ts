import type { Schemas } from '@kg/sdk';
import { describe, expect, it } from 'vitest';
import { WEBHOOK_EVENT_TYPES } from '@kg/sdk/webhook-events';
import { parseEvents } from '../commands/webhooks.ts';
import { disabledHint, stateText } from './format.ts';

const endpoint = (over: Partial<Schemas['Webhook']> = {}): Schemas['Webhook'] => ({
  id: 'wh_01jd8x6q1bf5r3v2m9w7k4t0za',
  url: 'https://example.com/hooks',
  description: null,
  event_types: ['node.created'],
  enabled: true,
  disabled_reason: null,
  disabled_at: null,
  failing_since: null,
  secret_prefix: 'whsec_abcdef',
  previous_secret_expires_at: null,
  pending_deliveries: 0,
  created_at: '2026-11-28T10:00:00.000Z',
  updated_at: '2026-11-28T10:00:00.000Z',
  ...over,
});

describe('kg webhooks --events', () => {
  it('takes known types, comma-separated, each once', () => {
    expect(parseEvents('node.created, capture.processed,node.created')).toEqual(['node.created', 'capture.processed']);
    expect(parseEvents(WEBHOOK_EVENT_TYPES.join(','))).toEqual([...WEBHOOK_EVENT_TYPES]);
  });
  it('refuses an unknown type (naming the known ones) and an empty list', () => {
    expect(() => parseEvents('node.created,node.exploded')).toThrow(
      /unknown event type node\.exploded; one of capture\.processed/,
    );
    expect(() => parseEvents(' , ')).toThrow(/at least one/);
  });
});

describe('webhook state', () => {
  it('says enabled, failing, paused, or why the server disabled it', () => {
    expect(stateText(endpoint())).toBe('enabled');
    expect(stateText(endpoint({ failing_since: '2026-11-28T11:00:00.000Z' }))).toBe(
      'enabled, failing since 2026-11-28 11:00:00Z',
    );
    expect(stateText(endpoint({ enabled: false, disabled_reason: 'by_user' }))).toBe('paused');
    expect(stateText(endpoint({ enabled: false, disabled_reason: 'gone' }))).toBe(
      'disabled: receiver answered 410 Gone',
    );
    expect(stateText(endpoint({ enabled: false, disabled_reason: 'failing' }))).toBe('disabled: kept failing');
  });

  it('tells how to re-enable an endpoint the server disabled, and nothing for a paused one', () => {
    expect(disabledHint(endpoint({ enabled: false, disabled_reason: 'by_user' }))).toBeNull();
    const hint = disabledHint(
      endpoint({ enabled: false, disabled_reason: 'gone', disabled_at: '2026-11-28T12:00:00.000Z' }),
    );
    expect(hint).toContain('receiver answered 410 Gone');
    expect(hint).toContain('kg webhooks update wh_01jd8x6q1bf5r3v2m9w7k4t0za --enable');
  });
});
