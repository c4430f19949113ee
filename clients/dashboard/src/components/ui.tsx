import { useEffect, useRef, type ReactNode } from 'react';
import ReactMarkdown from 'react-markdown';
import { ApiError } from '../api/client';

export function ErrorNote({ error }: { error: Error | undefined }) {
  if (!error) return null;
  const fields = error instanceof ApiError ? (error.problem.errors ?? []) : [];
  return (
    <div className="error" role="alert">
      {error.message}
      {fields.length > 0 && (
        <ul>
          {fields.map((f, i) => (
            <li key={i}>
              {f.path}: {f.message}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

/** Markdown as React elements: raw HTML in the source is shown as text, never parsed. */
export function Markdown({ source }: { source: string }) {
  return (
    <div className="markdown">
      <ReactMarkdown skipHtml urlTransform={safeUrl}>
        {source}
      </ReactMarkdown>
    </div>
  );
}

/** Only http(s), mailto and same-page links survive; javascript: and data: become nothing. */
export function safeUrl(url: string): string {
  return /^(https?:|mailto:|#|\/(?!\/))/i.test(url) ? url : '';
}

/** A modal confirmation built on <dialog> (focus trapped and Escape handled by the browser). */
export function Confirm({
  open,
  title,
  children,
  confirmLabel,
  onConfirm,
  onCancel,
}: {
  open: boolean;
  title: string;
  children: ReactNode;
  confirmLabel: string;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) dialog.showModal();
    if (!open && dialog.open) dialog.close();
  }, [open]);
  return (
    <dialog ref={ref} aria-labelledby="confirm-title" onCancel={onCancel}>
      <h2 id="confirm-title">{title}</h2>
      <div>{children}</div>
      <div className="row end">
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
        <button type="button" className="danger" onClick={onConfirm}>
          {confirmLabel}
        </button>
      </div>
    </dialog>
  );
}

export const formatTime = (iso: string | null | undefined) => (iso ? new Date(iso).toLocaleString() : '—');
