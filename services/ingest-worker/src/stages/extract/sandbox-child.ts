// Entry of one extraction sandbox process (sandbox.ts starts it under OS limits, bundled by sandbox-entry.ts): it takes one
// job over the IPC channel, parses the untrusted content, answers once, and exits. Nothing of
// the service runs here, no secret is in its environment, and a parser that blows up takes
// only this process with it.
import { StageError } from '../result';
import { extractContent } from './content';
import type { SandboxAnswer, SandboxRequest } from './sandbox';

/** An allocation that failed inside a parser (typed arrays, strings): the memory limit, not the file, ended it. */
const isAllocationFailure = (err: unknown) =>
  err instanceof RangeError &&
  /allocation failed|invalid (string|array|typed array) length|out of memory/i.test(err.message);

function outputBytes(out: { markdown: string }): number {
  // Measured before serialising: a markdown past the limit is never copied again.
  const rest = JSON.stringify({ ...out, markdown: '' });
  return Buffer.byteLength(out.markdown) + Buffer.byteLength(rest);
}

async function answer(request: SandboxRequest): Promise<SandboxAnswer> {
  try {
    const { out, models } = await extractContent(request.job, request.settings);
    if (out.markdown.length > request.outputMaxBytes || outputBytes(out) > request.outputMaxBytes)
      return { ok: false, limit: 'output' };
    return { ok: true, out, models };
  } catch (err) {
    if (err instanceof StageError) return { ok: false, message: err.message, retryable: err.retryable };
    if (isAllocationFailure(err)) return { ok: false, limit: 'memory' };
    return { ok: false, message: `extraction failed: ${(err as Error)?.message ?? String(err)}`, retryable: false };
  }
}

// The parent going away (a crash, a kill) ends the sandbox too.
process.on('disconnect', () => process.exit(0));
process.once('message', (request: SandboxRequest) => {
  void answer(request).then((a) => process.send!(a, () => process.exit(0)));
});
process.send!({ ready: true });
