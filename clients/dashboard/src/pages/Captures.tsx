import { useEffect, useRef, useState } from 'react';
import { api, unwrap } from '../api/client';
import { subscribeEvents } from '../api/events';
import { ErrorNote, formatTime } from '../components/ui';
import { Pager } from '../components/Pager';
import { useLoad } from '../hooks';
import { navigate, useLocation } from '../router';
import { CaptureDetail } from './CaptureDetail';
import { NewCapture } from './NewCapture';

const STATUSES = ['pending', 'processing', 'processed', 'failed', 'archived', 'dismissed'] as const;
type Status = (typeof STATUSES)[number];
const PER_PAGE = 20;

/** The captures inbox: new capture, list by status, a capture's detail; live through GET /events. */
export default function CapturesPage() {
  const url = useLocation();
  const selected = url.pathname.split('/')[2] ?? null;
  const [status, setStatus] = useState<Status | ''>((url.searchParams.get('status') as Status | null) ?? '');
  const [page, setPage] = useState(1);
  const [live, setLive] = useState(false);
  /** Why live updates stopped for good (the session was signed out or revoked), if they did. */
  const [ended, setEnded] = useState<string | null>(null);
  const [changes, setChanges] = useState(0);
  const list = useLoad(
    async () =>
      unwrap(
        await api.GET('/captures', { params: { query: { page, per_page: PER_PAGE, ...(status ? { status } : {}) } } }),
      ),
    [status, page, changes],
  );
  // Several events in a burst cause one reload.
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => {
    const bump = () => {
      clearTimeout(timer.current);
      timer.current = setTimeout(() => setChanges((n) => n + 1), 150);
    };
    const stop = subscribeEvents(
      (event) => event.type.startsWith('capture.') && bump(),
      () => {
        setLive(true);
        bump();
      },
      (detail) => {
        setLive(false);
        setEnded(detail);
      },
    );
    return () => {
      stop();
      clearTimeout(timer.current);
    };
  }, []);

  return (
    <main id="main">
      <div className="row">
        <h1 className="grow">Captures</h1>
        <span className="muted" role="status">
          {ended ? `Live updates ended: ${ended}` : live ? 'Live updates on' : 'Connecting for live updates…'}
        </span>
      </div>
      <div className="split">
        <div>
          <div className="tabs" role="group" aria-label="Filter by status">
            {(['', ...STATUSES] as const).map((s) => (
              <button
                key={s || 'all'}
                type="button"
                aria-pressed={status === s}
                onClick={() => {
                  setStatus(s);
                  setPage(1);
                }}
              >
                {s || 'all'}
              </button>
            ))}
          </div>
          <ErrorNote error={list.error} />
          <table>
            <caption className="skip">Captures</caption>
            <thead>
              <tr>
                <th scope="col">Title</th>
                <th scope="col">Type</th>
                <th scope="col">Status</th>
                <th scope="col">Captured</th>
              </tr>
            </thead>
            <tbody data-testid="captures">
              {list.data?.data.map((c) => (
                <tr key={c.id} aria-selected={c.id === selected}>
                  <td>
                    <a
                      href={`/captures/${c.id}`}
                      onClick={(e) => {
                        e.preventDefault();
                        navigate(`/captures/${c.id}`);
                      }}
                    >
                      {c.title}
                    </a>
                    {c.url && <div className="muted">{c.url}</div>}
                  </td>
                  <td>{c.content_type}</td>
                  <td>
                    <span className={`badge ${c.status}`} data-testid="capture-status">
                      {c.status}
                    </span>
                  </td>
                  <td>{formatTime(c.created_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {list.data?.data.length === 0 && <p className="muted">No captures{status ? ` ${status}` : ''}.</p>}
          {list.data && (
            <Pager page={page} perPage={PER_PAGE} total={list.data.total} onPage={setPage} label="Capture pages" />
          )}
        </div>
        <div>
          {selected ? (
            <CaptureDetail key={selected} id={selected} version={changes} onChanged={() => setChanges((n) => n + 1)} />
          ) : (
            <NewCapture onCreated={(id) => navigate(`/captures/${id}`)} />
          )}
        </div>
      </div>
    </main>
  );
}
