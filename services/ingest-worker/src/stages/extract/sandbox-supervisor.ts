// Entry of the extraction sandbox's supervisor (supervised.ts starts it, sandbox-entry.ts
// bundles it): a small process that starts the sandbox processes, watches them and passes
// their answers back. A service that has grown to a gigabyte held its event loop ~100 ms for
// each process it forked itself; this one forks in ~2 ms. It holds no secret, as the sandbox
// processes it starts, and ends them and itself when the service goes away.
import path from 'node:path';
import { StageError } from '../result';
import { createSandbox } from './sandbox';
import type { SupervisorAnswer, SupervisorOptions, SupervisorRequest } from './supervisor-messages';

// Beside this file's bundle (process.argv[1]; the bundle gives our sources their own
// import.meta.url, see sandbox-entry.ts).
const CHILD = path.join(path.dirname(process.argv[1]!), 'sandbox-child.js');
const options = JSON.parse(process.argv[2] ?? '{}') as SupervisorOptions;

const send = (m: SupervisorAnswer) => {
  if (process.connected) process.send!(m);
};
const sandbox = createSandbox({
  ...options,
  childEntry: () => Promise.resolve(CHILD),
  onOutcome: (outcome) => send({ type: 'outcome', outcome }),
});
const end = () => void sandbox.close().finally(() => process.exit(0));

process.on('disconnect', end);
process.on('message', (m: SupervisorRequest) => {
  if (m.type === 'close') return end();
  sandbox.run(m.job, m.timeoutMs).then(
    ({ out, models }) => send({ type: 'done', id: m.id, out, models }),
    (err: unknown) =>
      send({
        type: 'failed',
        id: m.id,
        message: (err as Error)?.message ?? String(err),
        retryable: err instanceof StageError ? err.retryable : true,
      }),
  );
});
send({ type: 'ready' });
