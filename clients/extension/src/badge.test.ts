import { describe, expect, it } from 'vitest';
import type { CapturedUrl } from './api';
import { badgeFor } from './badge';

const captured = (status: CapturedUrl['status']): CapturedUrl => ({
  url: 'https://example.com/a',
  capture_id: 'cap_01jd8x6q1bf5r3v2m9w7k4t0za',
  status,
  captured_at: '2026-11-28T10:00:00.000Z',
});

describe('badgeFor', () => {
  it('moves from … to ✓ as the capture is processed; ! when it failed', () => {
    expect(badgeFor(0, captured('pending')).text).toBe('…');
    expect(badgeFor(0, captured('processing'))).toMatchObject({
      text: '…',
      title: 'Knowledge Graph: captured, being processed',
    });
    expect(badgeFor(0, captured('processed'))).toEqual({
      text: '✓',
      color: '#16a34a',
      title: 'Knowledge Graph: captured and processed',
    });
    expect(badgeFor(0, captured('failed'))).toMatchObject({ text: '!', color: '#b91c1c' });
    expect(badgeFor(0, captured('archived')).text).toBe('✓');
  });

  it('counts what waits to be sent first; a page never captured has none', () => {
    expect(badgeFor(3, captured('processed'))).toMatchObject({ text: '3', color: '#c2410c' });
    expect(badgeFor(0, null)).toEqual({ text: '', color: '#16a34a', title: 'Knowledge Graph' });
  });
});
