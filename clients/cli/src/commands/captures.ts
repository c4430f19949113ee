import { type Command } from 'commander';
import { ok, type Capture } from '@kg/sdk';
import { activityLine, statusColour } from '../capture-format.ts';
import { examples, int, jsonOption, kg, oneOf, type JsonOption } from '../context.ts';
import { err, note, out, print, printFields, printJson, printTable, shorten, when } from '../output.ts';
import { captureCommand } from './capture.ts';

const STATUSES = ['pending', 'processing', 'processed', 'failed', 'archived', 'dismissed'] as const;
type Status = (typeof STATUSES)[number];

function printCapture(c: Capture): void {
  printFields([
    ['id', c.id],
    ['title', out.bold(c.title)],
    ['status', statusColour(c.status)],
    ['type', c.content_type],
    ['source', c.source],
    ['url', c.url],
    ['why', c.why],
    ['nodes', c.node_ids],
    ['error', c.error],
    ['created', when(c.created_at)],
    ['updated', when(c.updated_at)],
  ]);
}

export function captureCommands(program: Command): void {
  captureCommand(program);
  const captures = examples(
    program.command('captures').description('Captures: list them, follow their processing, retry, reingest, archive.'),
    ['kg captures list --status failed', 'kg captures activity cap_01jd…', 'kg captures retry cap_01jd…'],
  );

  examples(
    jsonOption(
      captures
        .command('list')
        .alias('ls')
        .description('List captures, newest first.')
        .option('--status <status>', STATUSES.join(', '), oneOf(...STATUSES))
        .option('--page <n>', 'page number', int(1, 1_000_000), 1)
        .option('--per-page <n>', 'captures per page (1–100)', int(1, 100), 20),
    ),
    ['kg captures list', 'kg captures list --status failed --json'],
  ).action(async (opts: JsonOption & { status?: Status; page: number; perPage: number }) => {
    const page = await ok(
      kg().api.GET('/captures', {
        params: { query: { page: opts.page, per_page: opts.perPage, ...(opts.status ? { status: opts.status } : {}) } },
      }),
    );
    if (opts.json) return printJson(page);
    printTable<Capture>(
      page.data,
      [
        ['ID', (c) => c.id],
        ['TITLE', (c) => shorten(c.title, 50)],
        ['TYPE', (c) => c.content_type],
        ['STATUS', (c) => statusColour(c.status)],
        ['CREATED', (c) => when(c.created_at)],
      ],
      { empty: 'No captures.' },
    );
    const pages = Math.max(1, Math.ceil(page.total / page.per_page));
    if (page.data.length)
      note(err.dim(`page ${page.page} of ${pages} · ${page.total} capture${page.total === 1 ? '' : 's'}`));
  });

  examples(
    jsonOption(captures.command('show').alias('get').description('Show a capture.').argument('<id>', 'capture id')),
    ['kg captures show cap_01jd…'],
  ).action(async (id: string, opts: JsonOption) => {
    const c = await ok(kg().api.GET('/captures/{id}', { params: { path: { id } } }));
    if (opts.json) printJson(c);
    else printCapture(c);
  });

  examples(
    jsonOption(
      captures
        .command('activity')
        .description('What happened to a capture, oldest first.')
        .argument('<id>', 'capture id'),
    ),
    ['kg captures activity cap_01jd…'],
  ).action(async (id: string, opts: JsonOption) => {
    const res = await ok(kg().api.GET('/captures/{id}/activity', { params: { path: { id } } }));
    if (opts.json) return printJson(res);
    for (const a of res.data) print(activityLine(a));
  });

  examples(
    jsonOption(
      captures
        .command('provenance')
        .description('How a capture became nodes: each run and its stages (model, input digest).')
        .argument('<id>', 'capture id'),
    ),
    ['kg captures provenance cap_01jd…', 'kg captures provenance cap_01jd… --json | jq ".runs[-1].stages"'],
  ).action(async (id: string, opts: JsonOption) => {
    const res = await ok(kg().api.GET('/captures/{id}/provenance', { params: { path: { id } } }));
    if (opts.json) return printJson(res);
    if (!res.runs.length) note('No runs yet.');
    for (const run of res.runs) {
      print(
        `${out.bold(run.run_id)}  ${statusColour(run.status)}  ${out.dim(run.reason)}  ${when(run.started_at)}${run.error ? `  ${out.red(run.error)}` : ''}`,
      );
      printTable(
        run.stages,
        [
          ['STAGE', (s) => s.name],
          ['MODEL', (s) => s.model],
          ['STARTED', (s) => when(s.started_at)],
          ['FINISHED', (s) => when(s.finished_at)],
          ['INPUT', (s) => s.input_digest.slice(0, 16)],
        ],
        { indent: '  ', empty: '  no stages yet' },
      );
    }
  });

  const lifecycle: Array<[action: 'retry' | 'reingest' | 'archive' | 'unarchive' | 'dismiss', text: string]> = [
    ['retry', 'Process a failed capture again.'],
    ['reingest', 'Run every stage again (the nodes of earlier runs are replaced).'],
    ['archive', 'Archive a capture (kept; unarchive returns it).'],
    ['unarchive', 'Return an archived or dismissed capture to its status.'],
    ['dismiss', 'Dismiss a capture (kept; unarchive returns it).'],
  ];
  for (const [action, text] of lifecycle) {
    examples(jsonOption(captures.command(action).description(text).argument('<id>', 'capture id')), [
      `kg captures ${action} cap_01jd…`,
    ]).action(async (id: string, opts: JsonOption) => {
      const c = await ok(kg().api.POST(`/captures/{id}/${action}`, { params: { path: { id } } }));
      if (opts.json) return printJson(c);
      note(`${c.id}: ${statusColour(c.status)}`);
    });
  }
}
