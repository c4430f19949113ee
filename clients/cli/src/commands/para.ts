import { type Command } from 'commander';
import { ok, type ParaItem, type Schemas } from '@kg/sdk';
import { examples, jsonOption, kg, oneOf, type JsonOption } from '../context.ts';
import { EXIT, Failure } from '../exit-codes.ts';
import { err, note, out, print, printJson, printTable, when } from '../output.ts';

type Category = 'projects' | 'areas' | 'resources';
type Job = Schemas['ParaJob'];
const CATEGORIES = ['projects', 'areas', 'resources'] as const;

const statusMark = (s: ParaItem['status']) =>
  s === 'completed' ? out.green('✓ completed') : s === 'archived' ? out.dim('archived') : '';

/** Waits for a reclassification job to finish (GET /para/jobs/:id every 500 ms). */
async function waitForJob(id: string, timeoutMs = 120_000): Promise<Job> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const job = await ok(kg().api.GET('/para/jobs/{id}', { params: { path: { id } } }));
    if (job.status === 'done' || job.status === 'failed') return job;
    if (Date.now() > deadline) throw new Failure(`Job ${id} is still ${job.status}; look again with --json later.`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

const jobLine = (job: Job) =>
  `${job.id}: ${job.status}, ${job.assigned} of ${job.queued} candidate node${job.queued === 1 ? '' : 's'} assigned`;

export function paraCommands(program: Command): void {
  const para = examples(program.command('para').description('PARA: projects, areas, resources and the archive.'), [
    'kg para tree',
    'kg para create projects Write the essay',
    'kg para rescan --wait',
  ]);

  examples(jsonOption(para.command('tree').description('All PARA items by category.')), [
    'kg para tree',
    'kg para tree --json',
  ]).action(async (opts: JsonOption) => {
    const tree = await ok(kg().api.GET('/para/tree'));
    if (opts.json) return printJson(tree);
    for (const { category, items } of tree.categories) {
      print(out.bold(category[0]!.toUpperCase() + category.slice(1)));
      if (!items.length) print(`  ${out.dim('(none)')}`);
      for (const item of items) print(`  ${item.label} ${out.dim(item.id)} ${statusMark(item.status)}`.trimEnd());
    }
  });

  examples(
    jsonOption(
      para
        .command('list')
        .alias('ls')
        .description('List PARA items, with filters.')
        .option('--category <category>', CATEGORIES.join(', '), oneOf(...CATEGORIES))
        .option('--status <status>', 'active, completed or archived', oneOf('active', 'completed', 'archived')),
    ),
    ['kg para list --category projects --status active'],
  ).action(async (opts: JsonOption & { category?: Category; status?: 'active' | 'completed' | 'archived' }) => {
    const { data } = await ok(
      kg().api.GET('/para', {
        params: {
          query: {
            ...(opts.category ? { category: opts.category } : {}),
            ...(opts.status ? { status: opts.status } : {}),
          },
        },
      }),
    );
    if (opts.json) return printJson(data);
    printTable<ParaItem>(
      data,
      [
        ['ID', (i) => i.id],
        ['CATEGORY', (i) => i.category],
        ['LABEL', (i) => i.label],
        ['STATUS', (i) => i.status],
        ['UPDATED', (i) => when(i.updated_at)],
      ],
      { empty: 'No PARA items.' },
    );
  });

  examples(
    jsonOption(
      para
        .command('create')
        .description('Create a project, area or resource (orphan nodes that match it are assigned in the background).')
        .argument('<category>', CATEGORIES.join(', '), oneOf(...CATEGORIES))
        .argument('<label...>', 'its label')
        .option('--description <text>', 'what it is about (matching uses it too)'),
    ),
    [
      'kg para create projects Write the essay on habits',
      'kg para create areas Health --description "sleep, food, exercise"',
    ],
  ).action(async (category: Category, label: string[], opts: JsonOption & { description?: string }) => {
    const item = await ok(
      kg().api.POST('/para', {
        body: { category, label: label.join(' '), ...(opts.description ? { description: opts.description } : {}) },
      }),
    );
    if (opts.json) return printJson(item);
    print(item.id);
    note(err.dim(`Created ${category.replace(/s$/, '')} “${item.label}”.`));
  });

  const transitions: Array<[name: 'complete' | 'archive' | 'unarchive' | 'undo-complete', text: string]> = [
    ['complete', 'Mark a project completed.'],
    ['undo-complete', 'Return a completed project to active.'],
    ['archive', 'Archive an item (its node links stop counting until it is unarchived).'],
    ['unarchive', 'Return an archived item to the status it had.'],
  ];
  for (const [name, text] of transitions) {
    examples(jsonOption(para.command(name).description(text).argument('<id>', 'PARA item id')), [
      `kg para ${name} para_01jd…`,
    ]).action(async (id: string, opts: JsonOption) => {
      const item = await ok(kg().api.POST(`/para/{id}/${name}`, { params: { path: { id } } }));
      if (opts.json) return printJson(item);
      note(`${item.label}: ${item.status}`);
    });
  }

  examples(
    jsonOption(
      para
        .command('match')
        .description('Assign the orphan nodes that match an active item to it (a background job).')
        .argument('<id>', 'PARA item id')
        .option('--wait', 'wait for the job to finish and report what it assigned'),
    ),
    ['kg para match para_01jd… --wait'],
  ).action(async (id: string, opts: JsonOption & { wait?: boolean }) => {
    let job: Job = await ok(kg().api.POST('/para/{id}/match', { params: { path: { id } } }));
    if (opts.wait) job = await waitForJob(job.id);
    if (opts.json) return printJson(job);
    note(jobLine(job));
    if (job.status === 'failed') throw new Failure('The job failed.', EXIT.error);
  });

  examples(
    jsonOption(
      para
        .command('rescan')
        .description('Reclassify every orphan node against every active item (once per 5 minutes).')
        .option('--wait', 'wait for the job to finish and report what it assigned'),
    ),
    ['kg para rescan --wait'],
  ).action(async (opts: JsonOption & { wait?: boolean }) => {
    const accepted = await ok(kg().api.POST('/para/rescan'));
    const job = opts.wait ? await waitForJob(accepted.job_id) : undefined;
    if (opts.json) return printJson(job ?? accepted);
    note(job ? jobLine(job) : `Rescan queued: ${accepted.queued} candidate nodes (job ${accepted.job_id}).`);
  });
}
