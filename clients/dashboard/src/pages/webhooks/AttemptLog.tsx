import type { Schemas } from '../../api/client';
import { formatTime } from '../../components/ui';

/** An endpoint's delivery attempts, newest first. */
export function AttemptLog({ attempts, caption }: { attempts: Schemas['WebhookAttempt'][]; caption: string }) {
  if (!attempts.length) return <p className="muted">No delivery attempts yet.</p>;
  return (
    <table data-testid="webhook-attempts">
      <caption className="skip">{caption}</caption>
      <thead>
        <tr>
          <th scope="col">Time</th>
          <th scope="col">Event</th>
          <th scope="col">Try</th>
          <th scope="col">Status</th>
          <th scope="col">HTTP</th>
          <th scope="col">Latency</th>
          <th scope="col">Error</th>
          <th scope="col">Next try</th>
        </tr>
      </thead>
      <tbody>
        {attempts.map((a) => (
          <tr key={`${a.delivery_id}-${a.attempt}`}>
            <td>{formatTime(a.attempted_at)}</td>
            <td>
              <code>{a.event_type}</code>
            </td>
            <td>{a.attempt}</td>
            <td>
              <span className={`badge ${a.outcome}`}>{a.outcome}</span>
            </td>
            <td>{a.http_status ?? '—'}</td>
            <td>{a.latency_ms} ms</td>
            <td>{a.error ?? ''}</td>
            <td>{a.next_attempt_at ? formatTime(a.next_attempt_at) : '—'}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
