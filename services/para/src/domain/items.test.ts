import { describe, expect, it } from 'vitest';
import type { ItemRow } from '../store/items';
import { archiveTransition, completeTransition, unarchiveTransition, undoCompleteTransition } from './items';

const now = new Date('2026-11-23T12:00:00.000Z');
const row = (over: Partial<ItemRow>): ItemRow => ({
  id: 'para_01jd8x6q1bf5r3v2m9w7k4t0za',
  tenantId: 'tnt_01jd8x6q1bf5r3v2m9w7k4t0za',
  category: 'projects',
  label: 'L',
  description: '',
  slug: 'l',
  status: 'active',
  restoreStatus: null,
  associationsPending: false,
  statusVersion: 4,
  createdAt: now,
  updatedAt: now,
  completedAt: null,
  archivedAt: null,
  ...over,
});

describe('PARA item transitions', () => {
  it('archive remembers the status to restore, marks the associations pending and bumps statusVersion; again is a no-op', () => {
    expect(archiveTransition(row({ status: 'completed' }), now).patch).toEqual({
      status: 'archived',
      restoreStatus: 'completed',
      archivedAt: now,
      associationsPending: true,
      statusVersion: 5,
    });
    expect(archiveTransition(row({ status: 'archived' }), now).patch).toEqual({});
  });

  it('unarchive restores the remembered status (active by default) and bumps statusVersion; on a live item it is a no-op', () => {
    expect(unarchiveTransition(row({ status: 'archived', restoreStatus: 'completed' })).patch).toMatchObject({
      status: 'completed',
      restoreStatus: null,
      archivedAt: null,
      associationsPending: true,
      statusVersion: 5,
    });
    expect(unarchiveTransition(row({ status: 'archived' })).patch.status).toBe('active');
    expect(unarchiveTransition(row({ status: 'active' })).patch).toEqual({});
  });

  it('complete and undo-complete: projects only, not while archived, idempotent', () => {
    for (const category of ['areas', 'resources'] as const) {
      expect(() => completeTransition(row({ category }), now)).toThrow(/projects/);
      expect(() => undoCompleteTransition(row({ category, status: 'completed' }))).toThrow(/projects/);
    }
    expect(() => completeTransition(row({ status: 'archived' }), now)).toThrow(/Unarchive/);
    expect(() => undoCompleteTransition(row({ status: 'archived' }))).toThrow(/Unarchive/);
    expect(completeTransition(row({}), now).patch).toEqual({ status: 'completed', completedAt: now });
    expect(completeTransition(row({ status: 'completed' }), now).patch).toEqual({});
    expect(undoCompleteTransition(row({ status: 'completed' })).patch).toEqual({ status: 'active', completedAt: null });
    expect(undoCompleteTransition(row({})).patch).toEqual({});
  });
});
