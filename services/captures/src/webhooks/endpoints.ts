import {
  conflict,
  invalid,
  notFound,
  type CreateWebhookInput,
  type UpdateWebhookInput,
  type Webhook,
  type WebhookAttempt,
  type WebhookCreated,
} from '@kg/contracts';
import { iso, isoOrNull, newId } from '@kg/db';
import { EgressRefusal, resolvePublic } from '@kg/service-kit';
import {
  attemptsOf,
  countEndpoints,
  deleteEndpoint,
  findEndpoint,
  insertDeliveries,
  insertEndpoint,
  listEndpoints,
  pendingCounts,
  updateEndpoint,
  type AttemptRow,
  type EndpointPatch,
  type EndpointRow,
} from '../store/webhooks';
import type { WebhooksContext } from './context';
import { deliveryOf, testMessage } from './payloads';
import { newWebhookSecret, secretPrefix } from './secrets';

export function toWebhook(row: EndpointRow, pending: number, now: Date): Webhook {
  const overlap = row.previousSecretExpiresAt && row.previousSecretExpiresAt > now ? row.previousSecretExpiresAt : null;
  return {
    id: row.id,
    url: row.url,
    description: row.description,
    event_types: row.eventTypes as Webhook['event_types'],
    enabled: row.enabled,
    disabled_reason: row.disabledReason,
    disabled_at: isoOrNull(row.disabledAt),
    failing_since: isoOrNull(row.failingSince),
    secret_prefix: secretPrefix(row.secret),
    previous_secret_expires_at: isoOrNull(overlap),
    pending_deliveries: pending,
    created_at: iso(row.createdAt),
    updated_at: iso(row.updatedAt),
  };
}

const toAttempt = (row: AttemptRow): WebhookAttempt => ({
  delivery_id: row.deliveryId,
  message_id: row.messageId,
  event_type: row.eventType as WebhookAttempt['event_type'],
  attempt: row.attempt,
  attempted_at: iso(row.attemptedAt),
  outcome: row.outcome,
  http_status: row.httpStatus,
  latency_ms: row.latencyMs,
  error: row.error,
  next_attempt_at: isoOrNull(row.nextAttemptAt),
});

/**
 * An endpoint's URL must be http(s), carry no credentials, and its host must resolve to
 * addresses the policy allows, now (and again at every delivery: DNS can change).
 */
async function checkUrl(ctx: WebhooksContext, raw: string): Promise<string> {
  const refuse = (message: string) => invalid(`url: ${message}`, [{ path: 'url', message }]);
  // The contract refuses what does not parse; this holds for any other caller too.
  if (!URL.canParse(raw)) throw refuse('must be a valid URL (its host cannot be parsed)');
  const url = new URL(raw);
  if (url.username || url.password) throw refuse('must not carry credentials (user:password@)');
  try {
    await resolvePublic(url.hostname, ctx.policy);
  } catch (err) {
    if (err instanceof EgressRefusal)
      throw refuse(err.kind === 'not_found' ? err.message : `${err.message}; webhooks go to public addresses only`);
    // A resolver that fails (EAI_AGAIN, a timeout) says nothing about the URL: still the
    // caller's to fix or retry, never a server error.
    throw refuse(
      `host ${url.hostname} could not be resolved (${(err as NodeJS.ErrnoException).code ?? 'failed'}); try again`,
    );
  }
  return url.toString();
}

async function endpointOf(ctx: WebhooksContext, tenantId: string, id: string): Promise<EndpointRow> {
  const row = await findEndpoint(ctx.db, tenantId, id);
  if (!row) throw notFound('Webhook');
  return row;
}

const pendingOf = async (ctx: WebhooksContext, tenantId: string, id: string) =>
  (await pendingCounts(ctx.db, tenantId)).get(id) ?? 0;

export async function createWebhook(
  ctx: WebhooksContext,
  tenantId: string,
  input: CreateWebhookInput,
): Promise<WebhookCreated> {
  const url = await checkUrl(ctx, input.url);
  if ((await countEndpoints(ctx.db, tenantId)) >= ctx.maxEndpoints)
    throw conflict(`a tenant has at most ${ctx.maxEndpoints} webhook endpoints; delete one first`);
  const now = ctx.now();
  const secret = newWebhookSecret();
  const row = await insertEndpoint(ctx.db, {
    id: newId('webhook'),
    tenantId,
    url,
    description: input.description ?? null,
    eventTypes: input.event_types,
    enabled: input.enabled,
    disabledReason: input.enabled ? null : 'by_user',
    disabledAt: input.enabled ? null : now,
    secret,
    createdAt: now,
    updatedAt: now,
  });
  ctx.subscribers.changed(tenantId);
  return { ...toWebhook(row, 0, now), secret };
}

export async function listWebhooks(ctx: WebhooksContext, tenantId: string): Promise<{ data: Webhook[] }> {
  const [rows, pending] = await Promise.all([listEndpoints(ctx.db, tenantId), pendingCounts(ctx.db, tenantId)]);
  const now = ctx.now();
  return { data: rows.map((r) => toWebhook(r, pending.get(r.id) ?? 0, now)) };
}

export async function getWebhook(ctx: WebhooksContext, tenantId: string, id: string): Promise<Webhook> {
  const row = await endpointOf(ctx, tenantId, id);
  return toWebhook(row, await pendingOf(ctx, tenantId, id), ctx.now());
}

export async function updateWebhook(
  ctx: WebhooksContext,
  tenantId: string,
  id: string,
  changes: UpdateWebhookInput,
): Promise<Webhook> {
  const current = await endpointOf(ctx, tenantId, id);
  const now = ctx.now();
  const patch: EndpointPatch = { updatedAt: now };
  if (changes.url !== undefined) patch.url = await checkUrl(ctx, changes.url);
  if (changes.event_types !== undefined) patch.eventTypes = changes.event_types;
  if (changes.description !== undefined) patch.description = changes.description;
  if (changes.enabled === true && !current.enabled)
    Object.assign(patch, { enabled: true, disabledReason: null, disabledAt: null, failingSince: null });
  if (changes.enabled === false && current.enabled)
    Object.assign(patch, { enabled: false, disabledReason: 'by_user', disabledAt: now });
  const row = await updateEndpoint(ctx.db, tenantId, id, patch);
  ctx.subscribers.changed(tenantId);
  if (!row) throw notFound('Webhook');
  if (row.enabled && !current.enabled) ctx.wake();
  return toWebhook(row, await pendingOf(ctx, tenantId, id), now);
}

export async function deleteWebhook(ctx: WebhooksContext, tenantId: string, id: string): Promise<{ deleted: true }> {
  const deleted = await deleteEndpoint(ctx.db, tenantId, id);
  ctx.subscribers.changed(tenantId);
  if (!deleted) throw notFound('Webhook');
  return { deleted: true };
}

export async function rotateWebhookSecret(
  ctx: WebhooksContext,
  tenantId: string,
  id: string,
  overlapSeconds: number,
): Promise<{ secret: string; secret_prefix: string; previous_secret_expires_at: string | null }> {
  const current = await endpointOf(ctx, tenantId, id);
  const now = ctx.now();
  const secret = newWebhookSecret();
  const expires = overlapSeconds > 0 ? new Date(now.getTime() + overlapSeconds * 1000) : null;
  const row = await updateEndpoint(ctx.db, tenantId, id, {
    secret,
    previousSecret: expires ? current.secret : null,
    previousSecretExpiresAt: expires,
    updatedAt: now,
  });
  ctx.subscribers.changed(tenantId);
  if (!row) throw notFound('Webhook');
  return { secret, secret_prefix: secretPrefix(secret), previous_secret_expires_at: isoOrNull(expires) };
}

/** Queues a `webhook.test` delivery, due now (an endpoint paused or disabled receives it once enabled). */
export async function sendTestEvent(
  ctx: WebhooksContext,
  tenantId: string,
  id: string,
): Promise<{ delivery_id: string; message_id: string }> {
  await endpointOf(ctx, tenantId, id);
  const now = ctx.now();
  const message = testMessage(newId('event'), id, now);
  const delivery = deliveryOf(tenantId, id, message, now);
  await insertDeliveries(ctx.db, [delivery]);
  ctx.wake();
  return { delivery_id: delivery.id, message_id: message.messageId };
}

export async function webhookAttempts(
  ctx: WebhooksContext,
  tenantId: string,
  id: string,
): Promise<{ data: WebhookAttempt[] }> {
  await endpointOf(ctx, tenantId, id);
  return { data: (await attemptsOf(ctx.db, tenantId, id)).map(toAttempt) };
}
