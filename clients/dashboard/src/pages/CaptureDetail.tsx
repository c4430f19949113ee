import { useState } from 'react';
import { api, unwrap } from '../api/client';
import { Confirm, ErrorNote, formatTime } from '../components/ui';
import { useAction, useLoad } from '../hooks';
import { Link, navigate } from '../router';

type Action = 'retry' | 'reingest' | 'archive' | 'unarchive' | 'dismiss';
const ACTIONS: Record<Action, { label: string; when: string[] }> = {
  retry: { label: 'Retry', when: ['failed'] },
  reingest: { label: 'Reingest', when: ['processed', 'failed'] },
  archive: { label: 'Archive', when: ['pending', 'processed', 'failed', 'dismissed'] },
  unarchive: { label: 'Unarchive', when: ['archived'] },
  dismiss: { label: 'Dismiss', when: ['pending', 'processed', 'failed'] },
};

const summarize = (detail: Record<string, unknown>) =>
  Object.entries(detail)
    .filter(([, v]) => v !== null && v !== undefined && typeof v !== 'object')
    .map(([k, v]) => `${k}: ${String(v)}`)
    .join(' · ');

/** One capture: fields, lifecycle actions, its nodes, activity timeline and provenance. */
export function CaptureDetail({ id, version, onChanged }: { id: string; version: number; onChanged: () => void }) {
  const capture = useLoad(
    async () => unwrap(await api.GET('/captures/{id}', { params: { path: { id } } })),
    [id, version],
  );
  const activity = useLoad(
    async () => unwrap(await api.GET('/captures/{id}/activity', { params: { path: { id } } })),
    [id, version],
  );
  const provenance = useLoad(
    async () => unwrap(await api.GET('/captures/{id}/provenance', { params: { path: { id } } })),
    [id, version],
  );
  const action = useAction();
  const [confirm, setConfirm] = useState<Action | null>(null);
  const act = (name: Action) =>
    action.run(async () => {
      setConfirm(null);
      const path = { params: { path: { id } } };
      if (name === 'retry') unwrap(await api.POST('/captures/{id}/retry', path));
      if (name === 'reingest') unwrap(await api.POST('/captures/{id}/reingest', path));
      if (name === 'archive') unwrap(await api.POST('/captures/{id}/archive', path));
      if (name === 'unarchive') unwrap(await api.POST('/captures/{id}/unarchive', path));
      if (name === 'dismiss') unwrap(await api.POST('/captures/{id}/dismiss', path));
      onChanged();
    });
  const c = capture.data;

  return (
    <section className="card" aria-labelledby="capture-title">
      <p>
        <button type="button" className="link" onClick={() => navigate('/captures')}>
          ← New capture
        </button>
      </p>
      <ErrorNote error={capture.error ?? action.error} />
      {c && (
        <>
          <h2 id="capture-title">{c.title}</h2>
          <p className="row">
            <span className={`badge ${c.status}`} data-testid="detail-status">
              {c.status}
            </span>
            <span className="muted">
              {c.content_type} · from {c.source} · {formatTime(c.created_at)}
            </span>
          </p>
          {c.url && (
            <p>
              <a href={c.url} rel="noreferrer noopener" target="_blank">
                {c.url}
              </a>
            </p>
          )}
          {c.why && <p>Why: {c.why}</p>}
          {c.error && <p className="error">{c.error}</p>}
          <div className="row">
            {(Object.keys(ACTIONS) as Action[])
              .filter((name) => ACTIONS[name].when.includes(c.status))
              .map((name) => (
                <button
                  key={name}
                  type="button"
                  disabled={action.busy}
                  onClick={() => (name === 'dismiss' ? setConfirm(name) : void act(name))}
                >
                  {ACTIONS[name].label}
                </button>
              ))}
          </div>
          {c.node_ids.length > 0 && (
            <>
              <h3>Nodes</h3>
              <p>
                <Link href={`/nodes?source_capture_id=${encodeURIComponent(c.id)}`}>List the nodes it made</Link>
              </p>
              <ul className="plain">
                {c.node_ids.map((n) => (
                  <li key={n}>
                    <NodeTitle id={n} /> · <Link href={`/graph?seed=${encodeURIComponent(n)}`}>in the graph</Link>
                  </li>
                ))}
              </ul>
            </>
          )}
        </>
      )}
      <h3>Activity</h3>
      <ErrorNote error={activity.error} />
      <ol className="timeline" data-testid="activity">
        {activity.data?.data.map((a) => (
          <li key={a.id}>
            <strong>{a.kind.replace(/_/g, ' ')}</strong> <span className="muted">{formatTime(a.at)}</span>
            {summarize(a.detail) && <div className="muted">{summarize(a.detail)}</div>}
          </li>
        ))}
      </ol>
      <h3>Provenance</h3>
      <ErrorNote error={provenance.error} />
      {provenance.data?.runs.length === 0 && <p className="muted">No processing run yet.</p>}
      {provenance.data?.runs.map((run) => (
        <details key={run.run_id} open={run === provenance.data!.runs[provenance.data!.runs.length - 1]}>
          <summary>
            Run {run.reason} · {run.status} · {formatTime(run.started_at)}
          </summary>
          {run.error && <p className="error">{run.error}</p>}
          <table>
            <thead>
              <tr>
                <th scope="col">Stage</th>
                <th scope="col">Model or method</th>
                <th scope="col">Output</th>
              </tr>
            </thead>
            <tbody>
              {run.stages.map((s) => (
                <tr key={s.name}>
                  <td>{s.name}</td>
                  <td>{s.model}</td>
                  <td className="muted">{summarize(s.output) || Object.keys(s.output).join(', ')}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </details>
      ))}
      <Confirm
        open={confirm === 'dismiss'}
        title="Dismiss this capture?"
        confirmLabel="Dismiss"
        onCancel={() => setConfirm(null)}
        onConfirm={() => void act('dismiss')}
      >
        <p>It leaves the inbox; you can still find it under “dismissed”.</p>
      </Confirm>
    </section>
  );
}

/** A link to a node, named by its title once loaded. */
function NodeTitle({ id }: { id: string }) {
  const node = useLoad(async () => unwrap(await api.GET('/nodes/{id}', { params: { path: { id } } })), [id]);
  return <Link href={`/nodes/${id}`}>{node.data ? `Open node “${node.data.title}”` : `Open node ${id}`}</Link>;
}
