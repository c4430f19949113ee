import { z } from 'zod';
import { CaptureId, NodeId } from './ids';
import { PageQuery, Timestamp, refuseNul, text } from './common';

export const CaptureContentType = z.enum(['tweet', 'video', 'repo', 'article', 'pdf', 'audio', 'note', 'image']);
export const CaptureSource = z.enum(['browser-extension', 'cli', 'api', 'mcp']);
export const CaptureStatus = z.enum(['pending', 'processing', 'processed', 'failed', 'archived', 'dismissed']);

export const CreateCaptureInput = z
  .object({
    title: text({ max: 500, trim: true }),
    url: refuseNul(z.url().max(2048)).optional(),
    content_type: CaptureContentType,
    why: text({ max: 5000 }).optional(),
    selected_text: text({ max: 100_000 }).optional(),
    raw_content: text({ max: 5_000_000 }).optional(),
    source: CaptureSource,
  })
  .strict()
  .meta({ id: 'CreateCaptureInput' });

export const Capture = z
  .object({
    id: CaptureId,
    title: z.string(),
    url: z.string().nullable(),
    content_type: CaptureContentType,
    why: z.string().nullable(),
    selected_text: z.string().nullable(),
    source: CaptureSource,
    status: CaptureStatus,
    metadata: z.record(z.string(), z.unknown()),
    node_ids: z.array(NodeId),
    error: z.string().nullable(),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .meta({ id: 'Capture' });

export const ListCapturesQuery = PageQuery.extend({ status: CaptureStatus.optional() }).strict();
export const CheckCaptureQuery = z.object({ url: text({ min: 1, max: 2048 }) }).strict();
