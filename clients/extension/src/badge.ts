import type { CapturedUrl } from './api';

export interface Badge {
  text: string;
  color: string;
  /** The toolbar button's tooltip. */
  title: string;
}

const NAME = 'Knowledge Graph';

/** The badge of a captured page, by the status of its latest capture. */
const CAPTURED: Record<CapturedUrl['status'], Omit<Badge, 'title'> & { state: string }> = {
  pending: { text: '…', color: '#64748b', state: 'captured, waiting to be processed' },
  processing: { text: '…', color: '#64748b', state: 'captured, being processed' },
  processed: { text: '✓', color: '#16a34a', state: 'captured and processed' },
  failed: { text: '!', color: '#b91c1c', state: 'captured, but processing failed' },
  archived: { text: '✓', color: '#16a34a', state: 'captured (archived)' },
  dismissed: { text: '✓', color: '#16a34a', state: 'captured (dismissed)' },
};

/**
 * The toolbar badge of a tab: how many captures wait to be sent (orange), else the state of
 * the page's latest capture (`GET /captures/check`): … while the pipeline works on it, ✓
 * (green) once processed, ! (red) when it failed; nothing for a page never captured.
 */
export function badgeFor(waiting: number, captured: CapturedUrl | null): Badge {
  if (waiting) return { text: String(waiting), color: '#c2410c', title: `${NAME}: ${waiting} waiting to be sent` };
  if (!captured) return { text: '', color: '#16a34a', title: NAME };
  const { text, color, state } = CAPTURED[captured.status];
  return { text, color, title: `${NAME}: ${state}` };
}
