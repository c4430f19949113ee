import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildProgram } from './program.ts';

/** Every command that runs something (no subcommands), with its full name. */
function leaves(cmd: Command, prefix = ''): Array<[string, Command]> {
  return cmd.commands.flatMap((c) => {
    const name = `${prefix}${c.name()}`;
    return c.commands.length ? leaves(c, `${name} `) : [[name, c] as [string, Command]];
  });
}

function helpOf(cmd: Command): string {
  let text = '';
  cmd.configureOutput({ writeOut: (s) => (text += s), writeErr: (s) => (text += s) });
  cmd.outputHelp();
  return text;
}

/** Commands that print no data (a message at most), so --json has nothing to format. */
const NO_DATA = new Set(['login', 'logout', 'nodes delete', 'keys revoke', 'webhooks rm', 'help']);

describe('kg --help', () => {
  const program = buildProgram();
  const all = leaves(program).filter(([name]) => name !== 'help');

  it('covers every command group of the brief', () => {
    const names = all.map(([n]) => n);
    for (const expected of [
      'login',
      'logout',
      'whoami',
      'nodes list',
      'nodes search',
      'nodes get',
      'nodes create',
      'nodes edit',
      'nodes delete',
      'nodes link',
      'nodes related',
      'capture',
      'captures list',
      'captures show',
      'captures activity',
      'captures provenance',
      'captures retry',
      'captures reingest',
      'captures archive',
      'para tree',
      'para create',
      'para complete',
      'para archive',
      'para match',
      'para rescan',
      'graph seed',
      'graph neighbors',
      'context',
      'suggest',
      'keys create',
      'keys list',
      'keys revoke',
      'webhooks list',
      'webhooks add',
      'webhooks show',
      'webhooks update',
      'webhooks rm',
      'webhooks rotate',
      'webhooks test',
      'webhooks attempts',
      'import',
      'export',
      'import-bookmarks',
      'imports list',
      'imports show',
      'imports cancel',
    ])
      expect(names).toContain(expected);
  });

  it.each(all)('%s has a description and examples', (_name, cmd) => {
    const help = helpOf(cmd);
    expect(cmd.description().length).toBeGreaterThan(10);
    expect(help).toMatch(/\nExamples:\n {2}\$ kg /);
  });

  it.each(all.filter(([name]) => !NO_DATA.has(name)))('%s takes --json', (_name, cmd) => {
    expect(cmd.options.map((o) => o.long)).toContain('--json');
  });

  it.each(program.commands.filter((c) => c.commands.length).map((c) => [c.name(), c] as const))(
    'the %s group has examples too',
    (_name, cmd) => {
      expect(helpOf(cmd)).toMatch(/\nExamples:\n {2}\$ kg /);
    },
  );

  it('the top-level help names the environment and the exit codes', () => {
    const help = helpOf(program);
    expect(help).toContain('SVC_API_URL');
    expect(help).toContain('SVC_TOKEN');
    expect(help).toContain(
      'Exit codes: 0 ok, 1 error, 2 usage, 3 authentication, 4 not found, 130 stopped following (Ctrl-C).',
    );
  });
});
