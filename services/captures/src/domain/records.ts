import type { Capture } from '@kg/contracts';
import { iso } from '@kg/db';
import type { CaptureRow } from '../store/captures';

/** The public capture record (API-CONVENTIONS.md); raw content only through /content. */
export const toCapture = (r: CaptureRow): Capture => ({
  id: r.id,
  title: r.title,
  url: r.url,
  content_type: r.contentType,
  why: r.why,
  selected_text: r.selectedText,
  source: r.source,
  status: r.status,
  metadata: r.metadata,
  node_ids: r.nodeIds,
  error: r.error,
  created_at: iso(r.createdAt),
  updated_at: iso(r.updatedAt),
});
