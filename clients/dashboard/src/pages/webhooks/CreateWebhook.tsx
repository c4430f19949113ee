import { useState, type FormEvent } from 'react';
import { WEBHOOK_EVENTS, WEBHOOK_EVENT_TYPES, type WebhookEventType } from '@kg/sdk/webhook-events';
import { api, unwrap, type Schemas } from '../../api/client';
import { ErrorNote } from '../../components/ui';
import { useAction } from '../../hooks';

/** The form that registers an endpoint: URL, event types (checkboxes), description. */
export function CreateWebhook({ onCreated }: { onCreated: (created: Schemas['WebhookCreated']) => void }) {
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState<WebhookEventType[]>([]);
  const [description, setDescription] = useState('');
  const action = useAction();

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!events.length) {
      action.setError(new Error('Choose at least one event type.'));
      return;
    }
    void action.run(async () => {
      const created = unwrap(
        await api.POST('/webhooks', {
          body: {
            url: url.trim(),
            // In the order of the list, whatever the order of the clicks.
            event_types: WEBHOOK_EVENT_TYPES.filter((t) => events.includes(t)),
            ...(description.trim() ? { description: description.trim() } : {}),
            enabled: true,
          },
        }),
      );
      setUrl('');
      setEvents([]);
      setDescription('');
      onCreated(created);
    });
  };
  const toggle = (type: WebhookEventType, on: boolean) =>
    setEvents((now) => (on ? [...now, type] : now.filter((t) => t !== type)));

  return (
    <form className="card" onSubmit={submit} aria-labelledby="new-webhook-title">
      <h2 id="new-webhook-title">Add an endpoint</h2>
      <label htmlFor="webhook-url">Endpoint URL</label>
      <input
        id="webhook-url"
        type="url"
        required
        maxLength={2048}
        value={url}
        onChange={(e) => setUrl(e.target.value)}
        placeholder="https://example.com/hooks/kg"
        aria-describedby="webhook-url-help"
      />
      <p id="webhook-url-help" className="muted">
        Events are POSTed here as JSON, signed with the endpoint’s secret. The address must be public (no private or
        loopback address).
      </p>
      <fieldset className="checks">
        <legend>Events to send</legend>
        {WEBHOOK_EVENT_TYPES.map((type) => (
          <label key={type} className="inline">
            <input type="checkbox" checked={events.includes(type)} onChange={(e) => toggle(type, e.target.checked)} />
            <code>{type}</code>
            <span className="muted">{WEBHOOK_EVENTS[type]}</span>
          </label>
        ))}
      </fieldset>
      <label htmlFor="webhook-description">Description (optional)</label>
      <input
        id="webhook-description"
        maxLength={200}
        value={description}
        onChange={(e) => setDescription(e.target.value)}
        placeholder="e.g. sync to my notes app"
      />
      <ErrorNote error={action.error} />
      <div className="row end">
        <button type="submit" className="primary" disabled={action.busy}>
          Add endpoint
        </button>
      </div>
    </form>
  );
}
