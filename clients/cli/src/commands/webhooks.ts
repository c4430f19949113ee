import { type Command, InvalidArgumentError, Option } from 'commander';
import { WEBHOOK_EVENT_TYPES, type WebhookEventType } from '@kg/sdk/webhook-events';
import { examples, int, jsonOption } from '../context.ts';
import type { AddOpts, RotateOpts, TestOpts, UpdateOpts } from '../webhooks/actions.ts';

/** `--events a,b`: known types, each once (a mistake is a usage error, exit 2). */
export function parseEvents(raw: string): WebhookEventType[] {
  const types = raw
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean);
  if (!types.length) throw new InvalidArgumentError('name at least one event type');
  const unknown = types.filter((t) => !(WEBHOOK_EVENT_TYPES as readonly string[]).includes(t));
  if (unknown.length)
    throw new InvalidArgumentError(
      `unknown event type ${unknown.join(', ')}; one of ${WEBHOOK_EVENT_TYPES.join(', ')}`,
    );
  return [...new Set(types)] as WebhookEventType[];
}

// The actions load when a webhooks command runs, not at every kg start.
const actions = () => import('../webhooks/actions.ts');

export function webhookCommands(program: Command): void {
  const webhooks = examples(
    program
      .command('webhooks')
      .description(
        'Signed outbound webhooks: endpoints that receive capture, node, link, proposal and PARA events (Standard Webhooks signatures).',
      ),
    [
      'kg webhooks add https://example.com/hooks/kg --events node.created,capture.processed',
      'kg webhooks list',
      'kg webhooks test wh_01jd… --wait',
    ],
  );

  examples(jsonOption(webhooks.command('list').alias('ls').description('List the webhook endpoints, oldest first.')), [
    'kg webhooks list',
    'kg webhooks list --json | jq -r \'.[] | select(.enabled | not) | "\\(.id) \\(.disabled_reason)"\'',
  ]).action(async (opts: { json?: boolean }) => (await actions()).list(opts));

  examples(
    jsonOption(
      webhooks
        .command('add')
        .alias('create')
        .description(
          'Register an endpoint; its signing secret (whsec_…) is printed once. The URL must resolve to public addresses.',
        )
        .argument('<url>', 'where events are POSTed (http:// or https://)')
        .requiredOption(
          '--events <types>',
          `comma-separated event types: ${WEBHOOK_EVENT_TYPES.join(', ')}`,
          parseEvents,
        )
        .option('--description <text>', 'what the endpoint is for (up to 200 characters)')
        .option('--disabled', 'create it paused (enable it with `kg webhooks update ID --enable`)'),
    ),
    [
      'kg webhooks add https://example.com/hooks/kg --events node.created,node.updated',
      'SECRET=$(kg webhooks add https://example.com/hooks/kg --events capture.processed --description "CI")',
    ],
  ).action(async (url: string, opts: AddOpts) => (await actions()).add(url, opts));

  examples(
    jsonOption(
      webhooks.command('show').alias('get').description('Show an endpoint.').argument('<id>', 'webhook id (wh_…)'),
    ),
    ['kg webhooks show wh_01jd…'],
  ).action(async (id: string, opts: { json?: boolean }) => (await actions()).show(id, opts));

  examples(
    jsonOption(
      webhooks
        .command('update')
        .description(
          'Change an endpoint: URL, event types, description; --disable pauses it, --enable resumes it or re-enables one the server disabled.',
        )
        .argument('<id>', 'webhook id (wh_…)')
        .option('--url <url>', 'a new address')
        .option('--events <types>', 'the new comma-separated event types (replace the old ones)', parseEvents)
        .option('--description <text>', 'a new description ("" removes it)')
        .addOption(new Option('--enable', 'resume deliveries (also after the server disabled it)').conflicts('disable'))
        .addOption(new Option('--disable', 'pause deliveries (they wait until enabled again)')),
    ),
    [
      'kg webhooks update wh_01jd… --events node.created,node.deleted',
      'kg webhooks update wh_01jd… --disable',
      'kg webhooks update wh_01jd… --enable',
    ],
  ).action(async (id: string, opts: UpdateOpts) => (await actions()).update(id, opts));

  examples(
    webhooks
      .command('rm')
      .alias('delete')
      .description('Delete an endpoint with its pending deliveries and its attempt log.')
      .argument('<id>', 'webhook id (wh_…)'),
    ['kg webhooks rm wh_01jd…'],
  ).action(async (id: string) => (await actions()).remove(id));

  examples(
    jsonOption(
      webhooks
        .command('rotate')
        .description(
          'A new signing secret, printed once; deliveries are signed with the previous one too during the overlap.',
        )
        .argument('<id>', 'webhook id (wh_…)')
        .option(
          '--overlap <seconds>',
          'how long the previous secret keeps signing too (0–604800; 0: not at all)',
          int(0, 7 * 24 * 3600),
          24 * 3600,
        ),
    ),
    ['kg webhooks rotate wh_01jd…', 'kg webhooks rotate wh_01jd… --overlap 0'],
  ).action(async (id: string, opts: RotateOpts) => (await actions()).rotate(id, opts));

  examples(
    jsonOption(
      webhooks
        .command('test')
        .description('Send a `webhook.test` event to the endpoint now; --wait shows how its first attempt went.')
        .argument('<id>', 'webhook id (wh_…)')
        .option('--wait', 'wait for the first attempt and print it; exit 1 if it failed')
        .option('--timeout <seconds>', 'with --wait: give up after this long', int(1, 3600), 60),
    ),
    ['kg webhooks test wh_01jd…', 'kg webhooks test wh_01jd… --wait'],
  ).action(async (id: string, opts: TestOpts) => (await actions()).test(id, opts));

  examples(
    jsonOption(
      webhooks
        .command('attempts')
        .description("The endpoint's last 100 delivery attempts, newest first.")
        .argument('<id>', 'webhook id (wh_…)'),
    ),
    ['kg webhooks attempts wh_01jd…', 'kg webhooks attempts wh_01jd… --json | jq ".[0]"'],
  ).action(async (id: string, opts: { json?: boolean }) => (await actions()).attempts(id, opts));
}
