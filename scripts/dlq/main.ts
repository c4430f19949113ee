/** `npm run dlq -- <list|replay|drop> <topic>`: see USAGE in run.ts and README.md. */
import { loadConfig } from '@kg/config';
import { dlqConfigSchema, runDlq } from './run';

try {
  const config = loadConfig('dlq', dlqConfigSchema);
  process.exitCode = await runDlq(process.argv.slice(2), config, {
    out: (line) => process.stdout.write(line + '\n'),
    err: (line) => process.stderr.write(line + '\n'),
  });
} catch (err) {
  process.stderr.write(`dlq: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
}
