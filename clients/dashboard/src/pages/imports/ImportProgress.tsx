import { useEffect, useState } from 'react';
import { api, unwrap } from '../../api/client';
import { ErrorNote, formatTime } from '../../components/ui';
import { useAction } from '../../hooks';
import { formatBytes, isFinal, percentRead, type Import } from './format';

/** How often a running import is read again. */
export const POLL_MS = 1000;
/** The errors shown (the API keeps the first 100). */
const SHOWN_ERRORS = 20;

/**
 * One import as it runs: GET /imports/:id every second until it is completed, failed or
 * cancelled (and never once the page is left), with its progress bar, counts, the first
 * entries it could not import by line, and Cancel while it runs. Mounted per import (`key`):
 * `initial` is read once, the looks keep it up to date.
 */
export function ImportProgress({ initial, onChanged }: { initial: Import; onChanged: (imp: Import) => void }) {
  const [imp, setImp] = useState(initial);
  const [pollError, setPollError] = useState<Error | undefined>();
  const cancel = useAction();
  const final = isFinal(imp);

  useEffect(() => {
    if (final) return;
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const look = async () => {
      try {
        const next = unwrap(await api.GET('/imports/{id}', { params: { path: { id: imp.id } } }));
        if (stopped) return;
        setPollError(undefined);
        setImp(next);
        if (isFinal(next)) {
          onChanged(next);
          return;
        }
      } catch (e) {
        if (stopped) return;
        setPollError(e as Error);
      }
      timer = setTimeout(() => void look(), POLL_MS);
    };
    timer = setTimeout(() => void look(), POLL_MS);
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
    // Restarted only for another import, or when it is running again after a look.
  }, [imp.id, final]);

  const doCancel = () =>
    cancel.run(async () => {
      const cancelled = unwrap(await api.POST('/imports/{id}/cancel', { params: { path: { id: imp.id } } }));
      setImp(cancelled);
      onChanged(cancelled);
    });

  const { counts } = imp;
  const more = counts.invalid - Math.min(imp.errors.length, SHOWN_ERRORS);
  return (
    <section className="card" aria-labelledby="import-title" data-testid="import-progress">
      <h2 id="import-title">{imp.filename}</h2>
      <p>
        <span data-testid="import-status" className={`badge ${imp.status}`}>
          {imp.status}
        </span>{' '}
        <span className="muted">
          {imp.format} · {formatBytes(imp.size_bytes)}
          {imp.para ? ' · folders become PARA items' : ''} · started {formatTime(imp.created_at)}
        </span>
      </p>
      <p>
        <label htmlFor="import-progress-bar">Import progress</label>{' '}
        <progress
          id="import-progress-bar"
          max={Math.max(imp.progress.size_bytes, 1)}
          value={imp.status === 'completed' ? Math.max(imp.progress.size_bytes, 1) : imp.progress.bytes_read}
        />{' '}
        {percentRead(imp)}% <span className="muted">({formatBytes(imp.progress.bytes_read)} read)</span>
      </p>
      <dl className="facts" data-testid="import-counts">
        <dt>Bookmarks read</dt>
        <dd>{counts.seen}</dd>
        <dt>Captures created</dt>
        <dd>{counts.created}</dd>
        <dt>Duplicates</dt>
        <dd>{counts.duplicates}</dd>
        <dt>Skipped (not web addresses)</dt>
        <dd>{counts.skipped}</dd>
        <dt>Invalid</dt>
        <dd>{counts.invalid}</dd>
      </dl>
      {imp.failure && (
        <div className="error" role="alert">
          The import failed: {imp.failure}
        </div>
      )}
      {imp.errors.length > 0 && (
        <>
          <h3>Entries that could not be imported</h3>
          <ul data-testid="import-errors">
            {imp.errors.slice(0, SHOWN_ERRORS).map((e, i) => (
              <li key={i}>
                {e.line > 0 ? `Line ${e.line}` : 'An entry'}: {e.reason}
              </li>
            ))}
          </ul>
          {more > 0 && <p className="muted">… and {more} more.</p>}
        </>
      )}
      <ErrorNote error={cancel.error ?? pollError} />
      {!final && (
        <div className="row end">
          <button type="button" className="danger" disabled={cancel.busy} onClick={() => void doCancel()}>
            Cancel import
          </button>
        </div>
      )}
    </section>
  );
}
