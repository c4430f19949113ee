import { CommanderError } from 'commander';
import { buildProgram } from './program.ts';
import { EXIT, exitCodeOf } from './exit-codes.ts';
import { printError } from './output.ts';

/** Runs kg with `argv` (without node and the script); resolves to the exit code. */
export async function runCli(argv: string[]): Promise<number> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv, { from: 'user' });
    return EXIT.ok;
  } catch (e) {
    if (e instanceof CommanderError) {
      // --help and --version end here with code 0; usage mistakes were printed by commander.
      return e.exitCode === 0 ? EXIT.ok : EXIT.usage;
    }
    printError(e, argv.includes('--json'));
    if (process.env['KG_DEBUG'] && e instanceof Error) process.stderr.write(`${e.stack}\n`);
    return exitCodeOf(e);
  }
}

const code = await runCli(process.argv.slice(2));
// Let stdout drain (a pipe may be slow), then leave even if an idle socket or timer lingers.
process.exitCode = code;
process.stdout.write('', () => process.exit(code));
