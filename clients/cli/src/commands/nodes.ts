import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type Command } from 'commander';
import { ok, type Node } from '@kg/sdk';
import { collect, examples, int, jsonOption, kg, num, oneOf, type JsonOption } from '../context.ts';
import { UsageError } from '../exit-codes.ts';
import { readTextArg, runEditor } from '../input.ts';
import { FrontMatterError, nodeToFile, parseNodeFile, titleFromBody } from '../node-file.ts';
import { err, note, out, print, printFields, printJson, printTable, shorten, when } from '../output.ts';
import { currentLinks } from '../links.ts';

type Mode = 'keyword' | 'semantic' | 'hybrid';
type Status = 'raw' | 'validated' | 'dismissed';

interface ListOpts extends JsonOption {
  mode?: Mode;
  para?: string;
  status?: Status;
  orphan?: boolean;
  page: number;
  perPage: number;
}

/** A node file; front matter the CLI refuses (`---js`…) is a usage error (exit 2) naming the file. */
function readNodeFile(text: string, file: string) {
  try {
    return parseNodeFile(text, file);
  } catch (e) {
    if (e instanceof FrontMatterError) throw new UsageError(e.message);
    throw e;
  }
}

const filterOptions = (cmd: Command) =>
  cmd
    .option('--para <id>', 'only nodes assigned to this PARA item (active assignments)')
    .option('--status <status>', 'raw, validated or dismissed', oneOf('raw', 'validated', 'dismissed'))
    .option('--orphan', 'only nodes without a PARA item')
    .option('--no-orphan', 'only nodes with a PARA item')
    .option('--page <n>', 'page number', int(1, 1_000_000), 1)
    .option('--per-page <n>', 'nodes per page (1–100)', int(1, 100), 20);

async function listNodes(query: string | undefined, opts: ListOpts): Promise<void> {
  const page = await ok(
    kg().api.GET('/nodes', {
      params: {
        query: {
          ...(query !== undefined ? { query } : {}),
          ...(opts.mode ? { mode: opts.mode } : {}),
          ...(opts.para ? { para_item_id: opts.para } : {}),
          ...(opts.status ? { status: opts.status } : {}),
          ...(opts.orphan !== undefined ? { orphan: opts.orphan ? 'true' : 'false' } : {}),
          page: opts.page,
          per_page: opts.perPage,
        },
      },
    }),
  );
  if (opts.json) return printJson(page);
  printTable<Node>(
    page.data,
    [
      ['ID', (n) => n.id],
      ['TITLE', (n) => shorten(n.title, 60)],
      ['STATUS', (n) => n.status],
      ['TAGS', (n) => n.tags],
      ['UPDATED', (n) => when(n.updated_at)],
    ],
    { empty: query ? 'No node matches.' : 'No nodes.' },
  );
  const pages = Math.max(1, Math.ceil(page.total / page.per_page));
  if (page.data.length)
    note(err.dim(`page ${page.page} of ${pages} · ${page.total} node${page.total === 1 ? '' : 's'}`));
}

function printNode(node: Node): void {
  printFields([
    ['id', node.id],
    ['title', out.bold(node.title)],
    ['status', node.status],
    ['tags', node.tags],
    ['summary', node.summary],
    ['para', node.para_item_ids],
    ['created', when(node.created_at)],
    ['updated', when(node.updated_at)],
  ]);
  if (node.body_markdown) print(`\n${node.body_markdown}`);
}

export function nodeCommands(program: Command): void {
  const nodes = examples(
    program.command('nodes').description('Nodes: list, search, read, create, edit, delete and link them.'),
    [
      'kg nodes list --status raw',
      'kg nodes search "spaced repetition" --mode keyword',
      'kg nodes create --title "An idea" --tag inbox',
    ],
  );

  examples(
    jsonOption(filterOptions(nodes.command('list').alias('ls').description('List nodes, newest first, with filters.'))),
    ['kg nodes list', 'kg nodes list --status raw --orphan', 'kg nodes list --para para_01jd… --per-page 100 --json'],
  ).action((opts: ListOpts) => listNodes(undefined, opts));

  examples(
    jsonOption(
      filterOptions(
        nodes
          .command('search')
          .description('Search nodes by relevance (hybrid by default: keyword and semantic together).')
          .argument('<query...>', 'what to look for')
          .option('--mode <mode>', 'keyword, semantic or hybrid', oneOf<Mode>('keyword', 'semantic', 'hybrid')),
      ),
    ),
    ['kg nodes search spaced repetition', 'kg nodes search "forgetting curve" --mode keyword --status validated'],
  ).action((words: string[], opts: ListOpts) => listNodes(words.join(' '), opts));

  examples(
    jsonOption(
      nodes.command('get').alias('show').description('Show a node and its markdown.').argument('<id>', 'node id'),
    ),
    ['kg nodes get node_01jd…', 'kg nodes get node_01jd… --json | jq -r .body_markdown'],
  ).action(async (id: string, opts: JsonOption) => {
    const node = await ok(kg().api.GET('/nodes/{id}', { params: { path: { id } } }));
    if (opts.json) printJson(node);
    else printNode(node);
  });

  examples(
    jsonOption(
      nodes
        .command('create')
        .description(
          'Create a node from flags, a markdown file with front matter (title, summary, tags), or stdin (--file -).',
        )
        .option('--title <title>', 'title (default: front matter title, else the first heading or line)')
        .option('--content <markdown>', 'the markdown body')
        .option('--file <path>', 'read the node from a markdown file; - reads stdin')
        .option('--summary <text>', 'summary')
        .option('--tag <tag>', 'a tag (repeat for more)', collect)
        .option('--para <id>', 'assign to a PARA item (repeat for more)', collect),
    ),
    [
      'kg nodes create --title "Spaced repetition" --content "Review at growing intervals." --tag learning',
      'kg nodes create --file note.md',
      'pbpaste | kg nodes create --file - --title "From the clipboard"',
    ],
  ).action(
    async (
      opts: JsonOption & {
        title?: string;
        content?: string;
        file?: string;
        summary?: string;
        tag?: string[];
        para?: string[];
      },
    ) => {
      if (opts.file !== undefined && opts.content !== undefined)
        throw new UsageError('give --content or --file, not both');
      const fromFile =
        opts.file !== undefined
          ? readNodeFile(await readTextArg(opts.file), opts.file === '-' ? 'stdin' : opts.file)
          : undefined;
      const content = opts.content ?? fromFile?.content ?? '';
      const title =
        opts.title ??
        fromFile?.title ??
        titleFromBody(content) ??
        (opts.file && opts.file !== '-' ? path.basename(opts.file, path.extname(opts.file)) : undefined);
      if (!title) throw new UsageError('a node needs a title: --title, front matter `title:`, or a first line');
      const node = await ok(
        kg().api.POST('/nodes', {
          body: {
            title,
            content,
            summary: opts.summary ?? fromFile?.summary ?? '',
            tags: opts.tag ?? fromFile?.tags ?? [],
            para_item_ids: opts.para ?? [],
          },
        }),
      );
      if (opts.json) return printJson(node);
      print(node.id);
      note(err.dim(`Created “${node.title}”.`));
    },
  );

  examples(
    jsonOption(
      nodes
        .command('edit')
        .description(
          'Edit a node in $EDITOR (front matter: title, summary, tags, status; then the markdown). Saving unchanged changes nothing.',
        )
        .argument('<id>', 'node id'),
    ),
    ['kg nodes edit node_01jd…', 'EDITOR="code --wait" kg nodes edit node_01jd…'],
  ).action(async (id: string, opts: JsonOption) => {
    const api = kg().api;
    const node = await ok(api.GET('/nodes/{id}', { params: { path: { id } } }));
    const dir = await mkdtemp(path.join(tmpdir(), 'kg-edit-'));
    const file = path.join(dir, `${id}.md`);
    try {
      await writeFile(file, nodeToFile(node), { mode: 0o600 });
      await runEditor(file);
      const edited = readNodeFile(await readFile(file, 'utf8'), `${id}.md`);
      const patch: Record<string, unknown> = {};
      if (edited.title && edited.title !== node.title) patch['title'] = edited.title;
      if ((edited.summary ?? '') !== node.summary) patch['summary'] = edited.summary ?? '';
      if (edited.tags && JSON.stringify(edited.tags) !== JSON.stringify(node.tags)) patch['tags'] = edited.tags;
      if (edited.status && edited.status !== node.status) patch['status'] = edited.status;
      if (edited.content.trimEnd() !== node.body_markdown.trimEnd()) patch['content'] = edited.content;
      if (!Object.keys(patch).length) {
        note('No changes.');
        if (opts.json) printJson(node);
        return;
      }
      const updated = await ok(api.PATCH('/nodes/{id}', { params: { path: { id } }, body: patch }));
      if (opts.json) return printJson(updated);
      note(`Updated ${Object.keys(patch).join(', ')} of “${updated.title}”.`);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  examples(
    nodes
      .command('delete')
      .alias('rm')
      .description('Delete a node (its links go with it).')
      .argument('<id...>', 'node ids'),
    ['kg nodes delete node_01jd…'],
  ).action(async (ids: string[]) => {
    for (const id of ids) {
      await ok(kg().api.DELETE('/nodes/{id}', { params: { path: { id } } }));
      note(`Deleted ${id}.`);
    }
  });

  examples(
    jsonOption(
      nodes
        .command('link')
        .description(
          'Link a node to others (both directions), keeping its other links. --replace sets exactly these links.',
        )
        .argument('<id>', 'the node')
        .argument('<targets...>', 'nodes to link it to')
        .option('--type <type>', 'link type, a lowercase word', 'related')
        .option('--weight <w>', 'weight in (0, 1]', num(0, 1, true), 1)
        .option('--replace', 'replace all the node’s links with these'),
    ),
    ['kg nodes link node_A node_B --type supports --weight 0.8', 'kg nodes link node_A node_B node_C --replace'],
  ).action(
    async (id: string, targets: string[], opts: JsonOption & { type: string; weight: number; replace?: boolean }) => {
      const keep = opts.replace ? [] : (await currentLinks(id)).filter((l) => !targets.includes(l.target_id));
      const links = [...keep, ...targets.map((target_id) => ({ target_id, type: opts.type, weight: opts.weight }))];
      const res = await ok(kg().api.PATCH('/nodes/{id}/links', { params: { path: { id } }, body: { links } }));
      if (opts.json) return printJson(res);
      note(`${id} now has ${res.links.length} link${res.links.length === 1 ? '' : 's'}.`);
    },
  );

  examples(
    jsonOption(
      nodes
        .command('unlink')
        .description('Remove the links between a node and others, keeping the rest.')
        .argument('<id>', 'the node')
        .argument('<targets...>', 'nodes to unlink'),
    ),
    ['kg nodes unlink node_A node_B'],
  ).action(async (id: string, targets: string[], opts: JsonOption) => {
    const links = (await currentLinks(id)).filter((l) => !targets.includes(l.target_id));
    const res = await ok(kg().api.PATCH('/nodes/{id}/links', { params: { path: { id } }, body: { links } }));
    if (opts.json) return printJson(res);
    note(`${id} now has ${res.links.length} link${res.links.length === 1 ? '' : 's'}.`);
  });

  examples(
    jsonOption(
      nodes
        .command('related')
        .description('The nodes linked to a node, strongest link first.')
        .argument('<id>', 'node id')
        .option('--limit <n>', 'at most this many (1–500)', int(1, 500), 20),
    ),
    ['kg nodes related node_01jd…', 'kg nodes related node_01jd… --limit 100 --json'],
  ).action(async (id: string, opts: JsonOption & { limit: number }) => {
    const res = await ok(
      kg().api.GET('/nodes/{id}/related', { params: { path: { id }, query: { limit: opts.limit } } }),
    );
    if (opts.json) return printJson(res);
    printTable(
      res.nodes,
      [
        ['ID', (n) => n.id],
        ['TITLE', (n) => shorten(n.title, 60)],
        ['TYPE', (n) => n.relationship_type],
      ],
      { empty: 'No linked nodes.' },
    );
  });
}
