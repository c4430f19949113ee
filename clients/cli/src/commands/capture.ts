import { stat } from 'node:fs/promises';
import path from 'node:path';
import { type Command } from 'commander';
import type { Ora } from 'ora';
import { ApiError, AuthRequiredError, ok, openEvents, uploadCapture, type Capture, type KgClient } from '@kg/sdk';
import { contentTypeOfUrl } from '@kg/sdk/capture-kinds';
import { examples, int, jsonOption, kg, type JsonOption } from '../context.ts';
import { EXIT, Failure, UsageError } from '../exit-codes.ts';
import { readStdin } from '../input.ts';
import { titleFromBody } from '../node-file.ts';
import { err, note, print, printJson } from '../output.ts';
import { activityLine } from '../capture-format.ts';

interface CaptureOpts extends JsonOption {
  url?: string;
  file?: string;
  why?: string;
  title?: string;
  selected?: string;
  wait?: boolean;
  timeout: number;
}

export function captureCommand(program: Command): void {
  examples(
    jsonOption(
      program
        .command('capture')
        .summary('capture a note, a URL or a file (--wait follows processing)')
        .description(
          'Capture a note (text or stdin), a URL (--url, with --why) or a file (--file, uploaded with a progress bar). With --wait, follow the processing to its end.',
        )
        .argument('[text...]', 'the note; read from stdin when absent')
        .option('--url <url>', 'capture a web page')
        .option('--file <path>', 'upload a file (PDF, image, DOCX, DOC, text or markdown; up to 25 MiB)')
        .option('--why <text>', 'why it matters (kept with the capture)')
        .option('--title <title>', 'title (default: the first line, the URL or the file name)')
        .option('--selected <text>', 'with --url: the passage selected on the page')
        .option('--wait', 'follow processing (live events) until processed or failed; exit 1 if it fails')
        .option('--timeout <seconds>', 'with --wait: give up after this long', int(1, 86_400), 300),
    ),
    [
      'kg capture "Idea: a weekly review of open loops"',
      'pbpaste | kg capture --title "From the clipboard"',
      'kg capture --url https://example.com/article --why "for the essay on habits" --wait',
      'kg capture --file paper.pdf --wait',
    ],
  ).action(async (words: string[], opts: CaptureOpts) => {
    const sources = [words.length > 0, !!opts.url, !!opts.file].filter(Boolean).length;
    if (sources > 1) throw new UsageError('capture one thing at a time: text, --url or --file');
    if (opts.selected && !opts.url) throw new UsageError('--selected goes with --url');
    const client = kg();
    const abort = new AbortController();
    // Subscribe before creating, so no status change can slip between the two.
    const events = opts.wait ? await openEvents(client, abort.signal) : undefined;
    try {
      const capture = await create(client, words, opts);
      if (!opts.wait) {
        if (opts.json) return printJson(capture);
        print(capture.id);
        note(err.dim(`Captured “${capture.title}” (${capture.status}).`));
        return;
      }
      const final = await follow(client, capture, events!, opts);
      if (opts.json) printJson(final);
      else print(final.id);
      if (final.status === 'failed')
        throw new Failure(`Processing failed: ${final.error ?? 'unknown error'}`, EXIT.error);
    } finally {
      abort.abort();
    }
  });
}

async function create(client: KgClient, words: string[], opts: CaptureOpts): Promise<Capture> {
  if (opts.file) {
    const { size } = await stat(opts.file).catch(() => {
      throw new UsageError(`no such file: ${opts.file}`);
    });
    const { SingleBar } = await import('cli-progress');
    const bar =
      process.stderr.isTTY && !opts.json
        ? new SingleBar({
            format: `Uploading ${path.basename(opts.file)} {bar} {percentage}% · {value}/{total} bytes`,
            hideCursor: true,
            stream: process.stderr,
          })
        : undefined;
    bar?.start(size, 0);
    try {
      return await uploadCapture(client, opts.file, {
        title: opts.title,
        why: opts.why,
        onProgress: (sent) => bar?.update(sent),
      });
    } finally {
      bar?.stop();
    }
  }
  if (opts.url) {
    return ok(
      client.api.POST('/captures', {
        body: {
          title: opts.title ?? opts.url,
          url: opts.url,
          content_type: contentTypeOfUrl(opts.url),
          source: 'cli',
          ...(opts.why ? { why: opts.why } : {}),
          ...(opts.selected ? { selected_text: opts.selected } : {}),
        },
      }),
    );
  }
  const text = words.length ? words.join(' ') : await readStdin('kg capture');
  if (!text.trim()) throw new UsageError('nothing to capture: the note is empty');
  const title = (opts.title ?? titleFromBody(text) ?? 'Note').slice(0, 500);
  return ok(
    client.api.POST('/captures', {
      body: {
        title,
        content_type: 'note',
        source: 'cli',
        raw_content: text,
        ...(opts.why ? { why: opts.why } : {}),
      },
    }),
  );
}

const DONE = new Set(['processed', 'failed', 'archived', 'dismissed']);
/** How long a refused look waits for the open event stream to say why its credential ended. */
const VERDICT_MS = 10_000;

/**
 * Follows a capture to the end of its processing: each live event for it (and, should the
 * stream stay silent, a look every 2 s) prints the new activity lines under a spinner.
 */
async function follow(
  client: KgClient,
  capture: Capture,
  events: AsyncGenerator<{ event: string; data: { data?: Record<string, unknown> } }>,
  opts: CaptureOpts,
): Promise<Capture> {
  const ora = (await import('ora')).default;
  const spinner: Ora | undefined =
    process.stderr.isTTY && !opts.json
      ? ora({ text: `Processing “${capture.title}”`, stream: process.stderr }).start()
      : undefined;
  const say = (line: string) => {
    if (opts.json) return;
    if (spinner) spinner.stopAndPersist({ symbol: ' ', text: line }).start(`Processing “${capture.title}”`);
    else note(line);
  };
  let wake: () => void = () => undefined;
  let streamOpen = true;
  let credentialEnded: AuthRequiredError | null = null;
  const streamDone = (async () => {
    try {
      // `credential.ended` (expired): the SDK reconnected with a fresh token; events in between
      // were not streamed, so look again now.
      for await (const e of events)
        if (e.event === 'credential.ended' || e.data.data?.['capture_id'] === capture.id) wake();
    } catch (e) {
      // The credential was revoked or signed out: stop waiting, say why. Any other end (the
      // server stopped, the network): polling carries on.
      if (e instanceof AuthRequiredError) {
        credentialEnded = e;
        wake();
      }
    }
    streamOpen = false;
    return credentialEnded;
  })();
  const deadline = Date.now() + opts.timeout * 1000;
  let printed = 0;
  let current = capture;
  const look = async () => {
    const { data } = await ok(client.api.GET('/captures/{id}/activity', { params: { path: { id: capture.id } } }));
    for (const a of data.slice(printed)) say(activityLine(a));
    printed = data.length;
    current = await ok(client.api.GET('/captures/{id}', { params: { path: { id: capture.id } } }));
  };
  try {
    for (;;) {
      if (credentialEnded) throw credentialEnded;
      try {
        await look();
      } catch (e) {
        // Refused: the credential ended. The stream's last event says why: it may have come
        // already, or come after the refusal (the revocation reaches the gateway holding the
        // stream as an event, within about a second, later on a loaded server); the refusal
        // itself when the stream is gone or says nothing within VERDICT_MS.
        if (!(e instanceof ApiError && (e.status === 401 || e.status === 403))) throw e;
        const wait = streamOpen ? VERDICT_MS : 0;
        throw (await Promise.race([streamDone, new Promise<null>((r) => setTimeout(() => r(null), wait))])) ?? e;
      }
      if (DONE.has(current.status)) break;
      if (Date.now() > deadline)
        throw new Failure(
          `Still ${current.status} after ${opts.timeout} s; follow it with \`kg captures activity ${capture.id}\`.`,
        );
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, streamOpen ? 2_000 : 1_000);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  } finally {
    spinner?.stop();
  }
  if (!opts.json) {
    const nodes = current.node_ids.length ? ` → ${current.node_ids.join(', ')}` : '';
    note(
      current.status === 'processed'
        ? err.green(`Processed${nodes}`)
        : err.red(`${current.status}${current.error ? `: ${current.error}` : ''}`),
    );
  }
  return current;
}
