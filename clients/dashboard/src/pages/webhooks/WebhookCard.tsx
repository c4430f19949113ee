import { useEffect, useRef, useState } from 'react';
import { api, unwrap, type Schemas } from '../../api/client';
import { ErrorNote, formatTime } from '../../components/ui';
import { useAction } from '../../hooks';
import { AttemptLog } from './AttemptLog';

type Webhook = Schemas['Webhook'];
type Attempt = Schemas['WebhookAttempt'];

const byId = (id: string) => ({ params: { path: { id } } });

/** The endpoint's state as a badge: enabled, failing, paused, or disabled (by the server). */
export function stateOf(w: Webhook): { label: string; badge: string } {
  if (w.enabled)
    return w.failing_since ? { label: 'failing', badge: 'pending' } : { label: 'enabled', badge: 'active' };
  return w.disabled_reason === 'by_user' || !w.disabled_reason
    ? { label: 'paused', badge: '' }
    : { label: 'disabled', badge: 'failed' };
}

/** Why the server disabled an endpoint, for people (null when it did not). */
export function serverDisabledReason(w: Webhook): string | null {
  if (w.enabled) return null;
  if (w.disabled_reason === 'gone')
    return 'its receiver answered 410 Gone, which asks the sender to stop. Deliveries wait until you re-enable it.';
  if (w.disabled_reason === 'failing')
    return `every delivery attempt failed for a day${w.failing_since ? ` (since ${formatTime(w.failing_since)})` : ''}. Deliveries wait until you re-enable it.`;
  return null;
}

/** One endpoint: its state (and what to do when the server disabled it), actions and attempt log. */
export function WebhookCard({
  webhook: w,
  onChanged,
  onRotate,
  onDelete,
}: {
  webhook: Webhook;
  onChanged: () => void;
  onRotate: (w: Webhook) => void;
  onDelete: (w: Webhook) => void;
}) {
  const action = useAction();
  const [attempts, setAttempts] = useState<Attempt[] | null>(null);
  const [waiting, setWaiting] = useState(false);
  const [queued, setQueued] = useState(false);
  const alive = useRef(true);
  useEffect(() => {
    alive.current = true;
    return () => {
      alive.current = false;
    };
  }, []);
  const headingId = `webhook-${w.id}`;
  const state = stateOf(w);
  const disabledWhy = serverDisabledReason(w);

  const loadAttempts = async () => {
    const { data } = unwrap(await api.GET('/webhooks/{id}/attempts', byId(w.id)));
    if (alive.current) setAttempts(data);
    return data;
  };
  const setEnabled = (enabled: boolean) =>
    action.run(async () => {
      unwrap(await api.PATCH('/webhooks/{id}', { ...byId(w.id), body: { enabled } }));
      onChanged();
    });
  /** Sends a test event, then follows the attempt log until its first attempt is there (up to 30 s). */
  const sendTest = () =>
    action.run(async () => {
      const sent = unwrap(await api.POST('/webhooks/{id}/test', byId(w.id)));
      // A paused or disabled endpoint keeps the delivery until it is enabled: nothing to follow now.
      setQueued(!w.enabled);
      if (!w.enabled) return onChanged();
      setWaiting(true);
      try {
        const deadline = Date.now() + 30_000;
        while (alive.current && Date.now() < deadline) {
          if ((await loadAttempts()).some((a) => a.delivery_id === sent.delivery_id)) break;
          await new Promise((r) => setTimeout(r, 500));
        }
      } finally {
        if (alive.current) setWaiting(false);
      }
      onChanged(); // the attempt may have changed the endpoint's state (410: disabled)
    });

  return (
    <section className="card" aria-labelledby={headingId} data-testid="webhook">
      <div className="row">
        <h3 id={headingId} className="grow webhook-url">
          {w.url}
        </h3>
        <span className={`badge ${state.badge}`} data-testid="webhook-state">
          {state.label}
        </span>
      </div>
      {w.description && <p>{w.description}</p>}
      {disabledWhy && (
        <div className="notice warning" role="alert">
          <p>
            <strong>The server disabled this endpoint</strong> on {formatTime(w.disabled_at)}: {disabledWhy}
          </p>
          <button type="button" className="primary" onClick={() => void setEnabled(true)} disabled={action.busy}>
            Re-enable
          </button>
        </div>
      )}
      {w.enabled && w.failing_since && (
        <p className="notice warning">
          Deliveries have failed since {formatTime(w.failing_since)}. Each is retried for a day; after a day of failures
          the server disables the endpoint.
        </p>
      )}
      <dl className="facts">
        <dt>Events</dt>
        <dd>{w.event_types.join(', ')}</dd>
        <dt>Secret</dt>
        <dd>
          <code>{w.secret_prefix}…</code>
          {w.previous_secret_expires_at &&
            ` (the previous one also signs until ${formatTime(w.previous_secret_expires_at)})`}
        </dd>
        <dt>Pending deliveries</dt>
        <dd>{w.pending_deliveries}</dd>
        <dt>Created</dt>
        <dd>{formatTime(w.created_at)}</dd>
      </dl>
      <ErrorNote error={action.error} />
      <div className="row">
        <button type="button" onClick={() => void sendTest()} disabled={action.busy}>
          Send test event
        </button>
        <button type="button" onClick={() => onRotate(w)} disabled={action.busy}>
          Rotate secret
        </button>
        {w.enabled ? (
          <button type="button" onClick={() => void setEnabled(false)} disabled={action.busy}>
            Pause
          </button>
        ) : (
          w.disabled_reason === 'by_user' && (
            <button type="button" onClick={() => void setEnabled(true)} disabled={action.busy}>
              Resume
            </button>
          )
        )}
        <button type="button" onClick={() => onDelete(w)} disabled={action.busy}>
          Delete
        </button>
        <button
          type="button"
          className="link"
          aria-expanded={attempts !== null}
          onClick={() => (attempts ? setAttempts(null) : void action.run(loadAttempts))}
        >
          {attempts ? 'Hide attempt log' : 'Show attempt log'}
        </button>
      </div>
      {waiting && <p role="status">Sending the test event…</p>}
      {queued && !w.enabled && (
        <p role="status">The test event is queued: it is delivered once the endpoint is enabled again.</p>
      )}
      {attempts && (
        <>
          <div className="row">
            <h4 className="grow">Attempt log (last 100)</h4>
            <button type="button" onClick={() => void action.run(loadAttempts)} disabled={action.busy}>
              Refresh log
            </button>
          </div>
          <AttemptLog attempts={attempts} caption={`Delivery attempts to ${w.url}`} />
        </>
      )}
    </section>
  );
}
