import { type Command } from 'commander';
import { ok, type NeighborsView } from '@kg/sdk';
import { examples, int, jsonOption, kg, oneOf, type JsonOption } from '../context.ts';
import { seedTree } from '../graph-tree.ts';
import { note, out, print, printJson } from '../output.ts';

export function graphCommands(program: Command): void {
  const graph = examples(program.command('graph').description('Graph views: the neighbourhood of a node as a tree.'), [
    'kg graph seed --depth 2',
    'kg graph neighbors node_01jd… --all',
  ]);

  examples(
    jsonOption(
      graph
        .command('seed')
        .description(
          'The graph around a seed node (default: the hub, the best-connected node) as an indented tree; … marks nodes with more neighbours beyond.',
        )
        .option('--seed <id>', 'seed node id (default: the hub)')
        .option('--depth <n>', 'hops from the seed (1–3)', int(1, 3), 1)
        .option('--max-nodes <n>', 'most nodes (1–2000), strongest links kept', int(1, 2000), 500),
    ),
    [
      'kg graph seed',
      'kg graph seed --seed node_01jd… --depth 2',
      'kg graph seed --depth 3 --json | jq ".edges | length"',
    ],
  ).action(async (opts: JsonOption & { seed?: string; depth: number; maxNodes: number }) => {
    const view = await ok(
      kg().api.GET('/graph/seed', {
        params: { query: { depth: opts.depth, max_nodes: opts.maxNodes, ...(opts.seed ? { seed: opts.seed } : {}) } },
      }),
    );
    if (opts.json) return printJson(view);
    const lines = seedTree(view);
    if (!lines.length) return note('The graph is empty.');
    for (const l of lines) {
      const via = l.via ? ` ${out.dim(`${l.via.type} ${l.via.weight}`)}` : '';
      print(
        `${out.dim(l.prefix)}${l.prefix ? '' : out.bold('')}${l.node.title} ${out.dim(l.node.id)}${via}${l.frontier ? out.yellow(' …') : ''}`,
      );
    }
    note(out.dim(`${view.meta.node_count} nodes, ${view.meta.edge_count} links, depth ${view.meta.depth}`));
  });

  examples(
    jsonOption(
      graph
        .command('neighbors')
        .alias('neighbours')
        .description('The neighbours of a node, strongest link first (every page with --all).')
        .argument('<id>', 'node id')
        .option('--direction <d>', 'out, in or both', oneOf('out', 'in', 'both'), 'both')
        .option('--limit <n>', 'links per page (1–200)', int(1, 200), 50)
        .option('--all', 'follow the cursor to the last page'),
    ),
    ['kg graph neighbors node_01jd…', 'kg graph neighbors node_01jd… --all --json'],
  ).action(
    async (id: string, opts: JsonOption & { direction: 'out' | 'in' | 'both'; limit: number; all?: boolean }) => {
      const pages: NeighborsView[] = [];
      let cursor: string | undefined;
      do {
        const page = await ok(
          kg().api.GET('/graph/neighbors/{id}', {
            params: {
              path: { id },
              query: { direction: opts.direction, limit: opts.limit, ...(cursor ? { cursor } : {}) },
            },
          }),
        );
        pages.push(page);
        cursor = opts.all ? (page.next_cursor ?? undefined) : undefined;
      } while (cursor);
      const nodes = new Map(pages.flatMap((p) => p.nodes).map((n) => [n.id, n]));
      const edges = pages.flatMap((p) => p.edges);
      const last = pages.at(-1)!;
      if (opts.json)
        return printJson({ node_id: id, nodes: [...nodes.values()], edges, next_cursor: last.next_cursor });
      print(out.bold(id));
      // Links are bidirectional: with --direction both, each neighbour is one line (↔ when seen from both ends).
      const rows = new Map<string, { arrow: string; type: string; weight: number }>();
      for (const e of edges) {
        const other = e.source === id ? e.target : e.source;
        const arrow = e.source === id ? '→' : '←';
        const seen = rows.get(other);
        if (seen) seen.arrow = seen.arrow === arrow ? arrow : '↔';
        else rows.set(other, { arrow, type: e.link_type, weight: e.weight });
      }
      [...rows].forEach(([other, r], i) => {
        const branch = out.dim(i === rows.size - 1 ? '└─' : '├─');
        print(
          `${branch} ${r.arrow} ${nodes.get(other)?.title ?? other} ${out.dim(other)} ${out.dim(`${r.type} ${r.weight}`)}`,
        );
      });
      if (!edges.length) note('No neighbours.');
      if (last.next_cursor) note(out.dim('More neighbours: --all, or --json for the cursor.'));
    },
  );
}
