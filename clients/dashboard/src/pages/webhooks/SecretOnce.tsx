import { useEffect, useRef, useState } from 'react';

export interface ShownSecret {
  title: string;
  secret: string;
  note?: string;
}

/** A signing secret the API returned this once: shown until "Done", with a copy button. */
export function SecretOnce({ shown, onDone }: { shown: ShownSecret; onDone: () => void }) {
  const [copied, setCopied] = useState(false);
  const ref = useRef<HTMLDivElement>(null);
  // The form may be further down the page: bring the secret into view, focus on it.
  useEffect(() => {
    setCopied(false);
    ref.current?.scrollIntoView({ block: 'nearest' });
    ref.current?.focus();
  }, [shown.secret]);
  const copy = () =>
    navigator.clipboard.writeText(shown.secret).then(
      () => setCopied(true),
      () => setCopied(false),
    );
  return (
    <div className="card" role="status" aria-labelledby="secret-title" ref={ref} tabIndex={-1}>
      <h2 id="secret-title">{shown.title}</h2>
      <p>
        Copy it now into your receiver, which verifies each delivery with it: it is shown only once and cannot be
        recovered (rotate the secret to get a new one).
      </p>
      <p className="key" data-testid="webhook-secret">
        {shown.secret}
      </p>
      {shown.note && <p className="muted">{shown.note}</p>}
      <div className="row">
        <button type="button" onClick={() => void copy()}>
          {copied ? 'Copied' : 'Copy secret'}
        </button>
        <button type="button" onClick={onDone}>
          Done
        </button>
      </div>
    </div>
  );
}
