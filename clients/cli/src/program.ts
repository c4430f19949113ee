import { Command } from 'commander';
import { authCommands } from './commands/auth.ts';
import { captureCommands } from './commands/captures.ts';
import { graphCommands } from './commands/graph.ts';
import { importBookmarksCommand } from './commands/import-bookmarks.ts';
import { importCommands } from './commands/imports.ts';
import { keyCommands } from './commands/keys.ts';
import { nodeCommands } from './commands/nodes.ts';
import { paraCommands } from './commands/para.ts';
import { searchCommands } from './commands/search.ts';
import { vaultCommands } from './commands/vault.ts';
import { webhookCommands } from './commands/webhooks.ts';
import { VERSION } from './version.ts';

const ENVIRONMENT = `
Environment:
  SVC_API_URL    base address of the API (default http://localhost:8080/api/v1)
  SVC_TOKEN      an API key (key_….secret); when set, kg uses it and needs no login.
                 Access tokens (JWTs) are refused: create a key with \`kg keys create\`.
  KG_CONFIG_DIR  where logins are stored (default $XDG_CONFIG_HOME/kg or ~/.config/kg)
  EDITOR         the editor of \`kg nodes edit\`
  NO_COLOR       no colours even on a terminal

Exit codes: 0 ok, 1 error, 2 usage, 3 authentication, 4 not found, 130 stopped following (Ctrl-C).`;

export function buildProgram(): Command {
  const program = new Command('kg')
    .description('The command line of the knowledge-graph service: nodes, captures, PARA, graph and search.')
    .version(VERSION, '-V, --version')
    .showHelpAfterError('(run with --help for usage)')
    .configureHelp({ sortSubcommands: false, showGlobalOptions: false })
    .exitOverride()
    .addHelpText(
      'after',
      `
Examples:
  $ kg login                                   # sign in in the browser (or: kg login --email you@example.com)
  $ kg nodes search "spaced repetition" --mode hybrid
  $ echo "Idea: review at growing intervals" | kg capture --wait
  $ kg capture --url https://example.com/article --why "for the essay"
  $ kg import ~/Notes                          # an Obsidian vault
  $ kg import-bookmarks ~/Downloads/bookmarks.html   # a browser's (or Pocket's, Karakeep's) export
  $ kg webhooks add https://example.com/hooks --events node.created   # signed event deliveries
${ENVIRONMENT}`,
    );
  for (const add of [
    authCommands,
    nodeCommands,
    captureCommands,
    paraCommands,
    graphCommands,
    searchCommands,
    keyCommands,
    webhookCommands,
    vaultCommands,
    importBookmarksCommand,
    importCommands,
  ])
    add(program);
  // Every subcommand exits through runCli (exit codes) and suggests --help on mistakes.
  const tune = (cmd: Command) => {
    cmd.exitOverride().showHelpAfterError('(run with --help for usage)');
    cmd.commands.forEach(tune);
  };
  program.commands.forEach(tune);
  return program;
}
