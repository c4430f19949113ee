import { useState } from 'react';
import { api, unwrap, type Schemas } from '../api/client';
import { Confirm, ErrorNote } from '../components/ui';
import { useAction, useLoad } from '../hooks';
import { CreateWebhook } from './webhooks/CreateWebhook';
import { SecretOnce, type ShownSecret } from './webhooks/SecretOnce';
import { WebhookCard } from './webhooks/WebhookCard';

type Webhook = Schemas['Webhook'];

/**
 * Settings › Webhooks: the endpoints that receive signed events (create, with the signing secret
 * shown once; test, rotate, pause / resume, re-enable after the server disabled one, delete) and
 * each one's attempt log.
 */
export default function WebhooksPage() {
  const list = useLoad(async () => unwrap(await api.GET('/webhooks')), []);
  const [shown, setShown] = useState<ShownSecret | null>(null);
  // One confirmation dialog at a time (its title names it).
  const [confirm, setConfirm] = useState<{ kind: 'rotate' | 'delete'; webhook: Webhook } | null>(null);
  const action = useAction();
  const rows = list.data?.data ?? [];

  const created = (w: Schemas['WebhookCreated']) => {
    setShown({ title: `Signing secret of ${w.url}`, secret: w.secret });
    list.reload();
  };
  const rotate = (w: Webhook) =>
    action.run(async () => {
      setConfirm(null);
      const rotated = unwrap(
        await api.POST('/webhooks/{id}/rotate-secret', {
          params: { path: { id: w.id } },
          body: { overlap_seconds: 24 * 3600 },
        }),
      );
      setShown({
        title: `New signing secret of ${w.url}`,
        secret: rotated.secret,
        note: rotated.previous_secret_expires_at
          ? `Deliveries carry a signature with the previous secret too until ${new Date(rotated.previous_secret_expires_at).toLocaleString()}: update the receiver before then.`
          : undefined,
      });
      list.reload();
    });
  const remove = (w: Webhook) =>
    action.run(async () => {
      setConfirm(null);
      unwrap(await api.DELETE('/webhooks/{id}', { params: { path: { id: w.id } } }));
      list.reload();
    });

  return (
    <main id="main">
      <h1>Settings › Webhooks</h1>
      <p className="muted">
        Webhooks POST your graph’s events (captures processed, nodes and links changed, proposals, PARA items) to your
        own endpoints, signed the Standard Webhooks way (<code>webhook-id</code>, <code>webhook-timestamp</code>,{' '}
        <code>webhook-signature</code>). Failed deliveries are retried for a day.
      </p>
      {shown && <SecretOnce shown={shown} onDone={() => setShown(null)} />}
      <ErrorNote error={action.error ?? list.error} />
      <h2>Endpoints</h2>
      {rows.length === 0 && !list.loading && <p className="muted">No webhook endpoints yet.</p>}
      {rows.map((w) => (
        <WebhookCard
          key={w.id}
          webhook={w}
          onChanged={list.reload}
          onRotate={(webhook) => setConfirm({ kind: 'rotate', webhook })}
          onDelete={(webhook) => setConfirm({ kind: 'delete', webhook })}
        />
      ))}
      <CreateWebhook onCreated={created} />
      <Confirm
        open={confirm !== null}
        title={confirm?.kind === 'rotate' ? 'Rotate this endpoint’s secret?' : 'Delete this endpoint?'}
        confirmLabel={confirm?.kind === 'rotate' ? 'Rotate secret' : 'Delete endpoint'}
        onCancel={() => setConfirm(null)}
        onConfirm={() =>
          confirm && void (confirm.kind === 'rotate' ? rotate(confirm.webhook) : remove(confirm.webhook))
        }
      >
        {confirm?.kind === 'rotate' ? (
          <p>
            A new secret is shown once. For a day, deliveries to <code>{confirm.webhook.url}</code> are signed with both
            the new and the previous secret, so the receiver keeps verifying them while you update it.
          </p>
        ) : (
          <p>
            <code>{confirm?.webhook.url}</code> receives no more events; its pending deliveries and its attempt log are
            deleted too. This cannot be undone.
          </p>
        )}
      </Confirm>
    </main>
  );
}
