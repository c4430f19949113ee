import { ok, type Schemas } from '@kg/sdk';
import { kg, type JsonOption } from '../context.ts';
import { EXIT, Failure, UsageError } from '../exit-codes.ts';
import { err, note, out, print, printFields, printJson, printTable, shorten, when } from '../output.ts';
import { attemptOutcome, disabledHint, stateOf } from './format.ts';

type Webhook = Schemas['Webhook'];
type Attempt = Schemas['WebhookAttempt'];
type EventType = Schemas['WebhookEventType'];

export interface AddOpts extends JsonOption {
  events: EventType[];
  description?: string;
  disabled?: boolean;
}

export interface UpdateOpts extends JsonOption {
  url?: string;
  events?: EventType[];
  description?: string;
  enable?: boolean;
  disable?: boolean;
}

export interface RotateOpts extends JsonOption {
  overlap: number;
}

export interface TestOpts extends JsonOption {
  wait?: boolean;
  timeout: number;
}

const byId = (id: string) => ({ params: { path: { id } } });

function printWebhook(w: Webhook): void {
  printFields([
    ['id', w.id],
    ['url', w.url],
    ['description', w.description],
    ['events', w.event_types],
    ['state', stateOf(w)],
    ['failing since', when(w.failing_since)],
    ['pending', w.pending_deliveries],
    ['secret', `${w.secret_prefix}…`],
    ['previous secret until', when(w.previous_secret_expires_at)],
    ['created', when(w.created_at)],
    ['updated', when(w.updated_at)],
  ]);
  const hint = disabledHint(w);
  if (hint) note(err.yellow(hint));
}

export async function list(opts: JsonOption): Promise<void> {
  const { data } = await ok(kg().api.GET('/webhooks'));
  if (opts.json) return printJson(data);
  printTable<Webhook>(
    data,
    [
      ['ID', (w) => w.id],
      ['URL', (w) => shorten(w.url, 50)],
      ['EVENTS', (w) => w.event_types],
      ['STATE', (w) => stateOf(w)],
      ['PENDING', (w) => w.pending_deliveries],
      ['SECRET', (w) => `${w.secret_prefix}…`],
    ],
    { empty: 'No webhook endpoints.' },
  );
  for (const w of data) {
    const hint = disabledHint(w);
    if (hint) note(err.yellow(hint));
  }
}

/** The signing secret on stdout (for `SECRET=$(…)`), what to do with it on stderr. */
function printSecret(secret: string, message: string): void {
  print(secret);
  note(err.dim(message));
}

export async function add(url: string, opts: AddOpts): Promise<void> {
  const created = await ok(
    kg().api.POST('/webhooks', {
      body: {
        url,
        event_types: opts.events,
        ...(opts.description !== undefined ? { description: opts.description } : {}),
        enabled: !opts.disabled,
      },
    }),
  );
  if (opts.json) return printJson(created);
  printSecret(
    created.secret,
    `Webhook ${created.id} created for ${created.url} (${created.event_types.join(', ')})${created.enabled ? '' : ', paused'}.\n` +
      'Its signing secret (above) is shown only this once: store it now in the receiver, which verifies each delivery with it.',
  );
}

export async function show(id: string, opts: JsonOption): Promise<void> {
  const w = await ok(kg().api.GET('/webhooks/{id}', byId(id)));
  if (opts.json) printJson(w);
  else printWebhook(w);
}

export async function update(id: string, opts: UpdateOpts): Promise<void> {
  const body: Schemas['UpdateWebhookInput'] = {
    ...(opts.url !== undefined ? { url: opts.url } : {}),
    ...(opts.events !== undefined ? { event_types: opts.events } : {}),
    // An empty --description removes it.
    ...(opts.description !== undefined ? { description: opts.description.trim() ? opts.description : null } : {}),
    ...(opts.enable ? { enabled: true } : opts.disable ? { enabled: false } : {}),
  };
  if (!Object.keys(body).length)
    throw new UsageError('name something to change: --url, --events, --description, --enable or --disable');
  const w = await ok(kg().api.PATCH('/webhooks/{id}', { ...byId(id), body }));
  if (opts.json) return printJson(w);
  printWebhook(w);
}

export async function remove(id: string): Promise<void> {
  await ok(kg().api.DELETE('/webhooks/{id}', byId(id)));
  note(`Deleted ${id}.`);
}

export async function rotate(id: string, opts: RotateOpts): Promise<void> {
  const rotated = await ok(
    kg().api.POST('/webhooks/{id}/rotate-secret', { ...byId(id), body: { overlap_seconds: opts.overlap } }),
  );
  if (opts.json) return printJson(rotated);
  printSecret(
    rotated.secret,
    `New signing secret for ${id} (above), shown only this once: store it now.\n` +
      (rotated.previous_secret_expires_at
        ? `Deliveries are signed with the previous secret too until ${when(rotated.previous_secret_expires_at)}.`
        : 'The previous secret no longer signs deliveries.'),
  );
}

export async function test(id: string, opts: TestOpts): Promise<void> {
  const sent = await ok(kg().api.POST('/webhooks/{id}/test', byId(id)));
  if (!opts.wait) {
    if (opts.json) return printJson(sent);
    print(sent.delivery_id);
    note(
      err.dim(`Test event queued (webhook-id ${sent.message_id}); \`kg webhooks attempts ${id}\` shows how it went.`),
    );
    return;
  }
  const attempt = await firstAttempt(id, sent.delivery_id, opts.timeout);
  if (opts.json) printJson(attempt);
  else printAttempts([attempt]);
  if (attempt.outcome !== 'succeeded')
    throw new Failure(`The test delivery failed: ${attempt.error ?? `HTTP ${attempt.http_status}`}`, EXIT.error);
}

/** Polls the attempt log until the delivery's first attempt is there. */
async function firstAttempt(id: string, deliveryId: string, timeoutSeconds: number): Promise<Attempt> {
  const deadline = Date.now() + timeoutSeconds * 1000;
  for (let delay = 200; ; delay = Math.min(delay * 2, 2000)) {
    const { data } = await ok(kg().api.GET('/webhooks/{id}/attempts', byId(id)));
    const mine = data.filter((a) => a.delivery_id === deliveryId);
    if (mine.length) return mine.at(-1)!;
    if (Date.now() + delay > deadline) {
      const w = await ok(kg().api.GET('/webhooks/{id}', byId(id)));
      throw new Failure(
        `No attempt within ${timeoutSeconds} s${w.enabled ? '' : ` (the endpoint is ${stateOf(w)}: it is delivered once enabled)`}.`,
        EXIT.error,
      );
    }
    await new Promise((r) => setTimeout(r, delay));
  }
}

function printAttempts(rows: readonly Attempt[]): void {
  printTable<Attempt>(
    rows,
    [
      ['TIME', (a) => when(a.attempted_at)],
      ['EVENT', (a) => a.event_type],
      ['TRY', (a) => a.attempt],
      ['OUTCOME', (a) => attemptOutcome(a)],
      ['HTTP', (a) => a.http_status],
      ['LATENCY', (a) => `${a.latency_ms} ms`],
      ['ERROR', (a) => (a.error ? out.red(shorten(a.error, 60)) : null)],
      ['NEXT TRY', (a) => when(a.next_attempt_at)],
    ],
    { empty: 'No delivery attempts yet.' },
  );
}

export async function attempts(id: string, opts: JsonOption): Promise<void> {
  const { data } = await ok(kg().api.GET('/webhooks/{id}/attempts', byId(id)));
  if (opts.json) return printJson(data);
  printAttempts(data);
}
