import type { Schemas } from '@kg/sdk';
import { out } from './output.ts';

type Activity = Schemas['CaptureActivity'];

/** One activity entry as a line: time, kind and the details that matter for it. */
export function activityLine(a: Activity): string {
  const d = (a.detail ?? {}) as Record<string, unknown>;
  const time = a.at.slice(11, 19);
  const parts: string[] = [];
  if (d['stage']) parts.push(String(d['stage']));
  if (d['model']) parts.push(`model ${String(d['model'])}`);
  if (d['reason']) parts.push(String(d['reason']));
  if (d['attempt']) parts.push(`attempt ${String(d['attempt'])}`);
  if (Array.isArray(d['node_ids']) && d['node_ids'].length) parts.push(`nodes ${d['node_ids'].join(', ')}`);
  if (d['error']) parts.push(out.red(String(d['error'])));
  const kind =
    a.kind === 'failed' || a.kind === 'stage_failed'
      ? out.red(a.kind)
      : a.kind === 'processed'
        ? out.green(a.kind)
        : a.kind;
  return `${out.dim(time)} ${kind}${parts.length ? ` ${out.dim('·')} ${parts.join(' · ')}` : ''}`;
}

export const statusColour = (status: string) =>
  status === 'processed'
    ? out.green(status)
    : status === 'failed'
      ? out.red(status)
      : status === 'processing' || status === 'pending'
        ? out.yellow(status)
        : out.dim(status);
