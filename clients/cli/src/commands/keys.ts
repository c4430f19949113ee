import { type Command } from 'commander';
import { ok, type ApiKey } from '@kg/sdk';
import { examples, jsonOption, kg, type JsonOption } from '../context.ts';
import { err, note, print, printJson, printTable, when } from '../output.ts';

export function keyCommands(program: Command): void {
  const keys = examples(
    program
      .command('keys')
      .description('API keys for scripts and SVC_TOKEN (creating and revoking need a login, not a key).'),
    ['kg keys create laptop', 'kg keys list', 'kg keys revoke key_01jd…'],
  );

  examples(
    jsonOption(
      keys
        .command('create')
        .description('Create an API key; the key is shown once.')
        .argument('<name>', 'what the key is for (1–100 characters)'),
    ),
    ['kg keys create laptop', 'export SVC_TOKEN=$(kg keys create ci --json | jq -r .key)'],
  ).action(async (name: string, opts: JsonOption) => {
    const key = await ok(kg().api.POST('/auth/api-keys', { body: { name } }));
    if (opts.json) return printJson(key);
    print(key.key);
    note(err.dim(`Key ${key.id} (“${key.name}”) created. It is shown only this once: store it now.`));
  });

  examples(
    jsonOption(keys.command('list').alias('ls').description('List the API keys, newest first, revoked ones included.')),
    ['kg keys list', 'kg keys list --json'],
  ).action(async (opts: JsonOption) => {
    const { data } = await ok(kg().api.GET('/auth/api-keys'));
    if (opts.json) return printJson(data);
    printTable<ApiKey>(
      data,
      [
        ['ID', (k) => k.id],
        ['NAME', (k) => k.name],
        ['PREFIX', (k) => k.prefix],
        ['CREATED', (k) => when(k.created_at)],
        ['LAST USED', (k) => when(k.last_used_at)],
        ['REVOKED', (k) => when(k.revoked_at)],
      ],
      { empty: 'No API keys.' },
    );
  });

  examples(
    keys
      .command('revoke')
      .description('Revoke an API key (it fails from the next request on).')
      .argument('<id>', 'key id (key_…)'),
    ['kg keys revoke key_01jd8x…'],
  ).action(async (id: string) => {
    await ok(kg().api.DELETE('/auth/api-keys/{id}', { params: { path: { id } } }));
    note(`Revoked ${id}.`);
  });
}
