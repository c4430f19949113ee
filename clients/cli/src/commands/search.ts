import { type Command } from 'commander';
import { ok } from '@kg/sdk';
import { collect, examples, jsonOption, kg, oneOf, type JsonOption } from '../context.ts';
import { readStdin } from '../input.ts';
import { out, print, printJson, printTable, shorten } from '../output.ts';

type Mode = 'keyword' | 'semantic' | 'hybrid';

export function searchCommands(program: Command): void {
  examples(
    jsonOption(
      program
        .command('context')
        .summary('nodes worth having in mind around focus nodes, with reasons')
        .description(
          'Nodes worth having in mind around some focus nodes (links, similarity, validation, recency), each with its reasons; the most recent nodes without --focus.',
        )
        .option('--focus <id>', 'a focus node (repeat for more, up to 50)', collect)
        .option(
          '--mode <mode>',
          'similarity: keyword, semantic or hybrid',
          oneOf<Mode>('keyword', 'semantic', 'hybrid'),
        ),
    ),
    ['kg context --focus node_01jd…', 'kg context --focus node_A --focus node_B --mode semantic --json'],
  ).action(async (opts: JsonOption & { focus?: string[]; mode?: Mode }) => {
    const res = await ok(
      kg().api.POST('/context', {
        body: { ...(opts.focus ? { focus_node_ids: opts.focus } : {}), ...(opts.mode ? { mode: opts.mode } : {}) },
      }),
    );
    if (opts.json) return printJson(res);
    for (const n of res.nodes) {
      print(`${out.bold(n.title)} ${out.dim(n.id)} ${out.cyan(n.score.toFixed(2))}`);
      for (const r of n.reasons) print(`  ${out.dim('·')} ${r}`);
    }
    if (!res.nodes.length) print(out.dim('Nothing yet.'));
  });

  examples(
    jsonOption(
      program
        .command('suggest')
        .description('Nodes a text could link to (semantic similarity), best first; the text from arguments or stdin.')
        .argument('[text...]', 'the text (stdin when absent)')
        .option('--node <id>', 'the node being edited: it and its linked nodes are left out'),
    ),
    [
      'kg suggest "memory decays unless reviewed"',
      'kg nodes get node_A --json | jq -r .body_markdown | kg suggest --node node_A',
    ],
  ).action(async (words: string[], opts: JsonOption & { node?: string }) => {
    const text = words.length ? words.join(' ') : (await readStdin('kg suggest')).slice(0, 10_000);
    const res = await ok(
      kg().api.GET('/links/suggestions', { params: { query: { text, ...(opts.node ? { node_id: opts.node } : {}) } } }),
    );
    if (opts.json) return printJson(res);
    printTable(
      res.suggestions,
      [
        ['NODE', (s) => s.node_id],
        ['TITLE', (s) => shorten(s.title, 60)],
        ['SCORE', (s) => s.score.toFixed(3)],
      ],
      { empty: 'No suggestions.' },
    );
  });
}
