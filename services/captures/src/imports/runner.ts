import { createPump } from '@kg/db';
import { randomUUID } from 'node:crypto';
import { parseBookmarks, place, type Entry } from '@kg/bookmarks';
import { IMPORT_MAX_ERRORS } from '@kg/contracts';
import { insertNewCapture } from '../domain/lifecycle';
import {
  capturedUrls,
  capturesInFlight,
  claimNext,
  saveProgress,
  staleUploads,
  type ImportPatch,
  type ImportRow,
} from '../store/imports';
import { judgeBookmark, type Judged } from './bookmark';
import type { ImportsContext } from './context';
import { ImportFileMissing, StorageUnavailable, deleteParts, readParts } from './files';
import { PARSER_FORMAT, discardImport } from './lifecycle';

export interface RunnerOptions {
  /** Imports run at once by this process (default 4; each tenant runs one at a time anyway). */
  lanes?: number;
  /** Longest sleep when no import is waiting (default 5 s): imports queued through another replica, expired claims. */
  idlePollMs?: number;
  /** How often an import held back by its captures in flight looks again (default 1 s). */
  admissionPollMs?: number;
  /** Entries handled between two progress writes when they make no capture (default 1,000). */
  progressEvery?: number;
  /** An upload opened this long ago and never started (its gateway died) is dropped with its parts (default 1 h). */
  abandonedUploadMs?: number;
  /** Called after each committed batch with how many this runner has committed (tests stop or stall a runner there). */
  afterBatch?: (committed: number) => Promise<void> | void;
}

export interface ImportRunner {
  /** An import was queued: look now rather than at the next timer. */
  wake(): void;
  /** Runs every claimable import to its end (or until stopped); resolves with how many it took. */
  drain(): Promise<number>;
  start(): void;
  /** Stops between batches: the imports being run keep their last committed batch and are released to be resumed. */
  stop(): Promise<void>;
}

/** Why a bookmark's address cannot be captured (judgeUrl's reasons but `unsupported_scheme`, which is skipped). */
const UNUSABLE: Record<string, string> = {
  invalid_url: 'the address is not a valid http(s) URL',
  url_too_long: 'the address is longer than 2,048 characters',
};

/** The runner no longer holds the import (cancelled, or its lease expired and another took it). */
class Lost extends Error {}
/** The file cannot be read by the parser: the import fails with this reason. */
class Unreadable extends Error {}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms).unref());

/** The parser's entries; an error of the parser itself (not of the storage) makes the file unreadable. */
async function* guarded(entries: AsyncGenerator<Entry>): AsyncGenerator<Entry> {
  try {
    yield* entries;
  } catch (err) {
    if (err instanceof ImportFileMissing || err instanceof StorageUnavailable) throw err;
    throw new Unreadable(`the file could not be read further: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/**
 * Runs bookmark imports in the background: claims one by lease (any number of replicas; a
 * tenant's imports one at a time, in the order they were queued), streams its stored file
 * through the parser, and creates its captures in batches, each in one transaction with the
 * import's progress and the captures' capture.queued events (the outbox). A batch waits while
 * IMPORT_MAX_IN_FLIGHT of the import's captures are still pending or processing, so an import
 * drips into the pipeline. A runner that dies leaves its claim to expire: the next one parses
 * the file again from the start, passes over the entries already committed, and goes on, so
 * no bookmark is captured twice or lost.
 */
export function createImportRunner(ctx: ImportsContext, options: RunnerOptions = {}): ImportRunner {
  const lanes = options.lanes ?? 4;
  const idlePollMs = options.idlePollMs ?? 5000;
  const admissionPollMs = options.admissionPollMs ?? 1000;
  const progressEvery = options.progressEvery ?? 1000;
  const abandonedUploadMs = options.abandonedUploadMs ?? 3600_000;
  const { db, blobs, logger } = ctx.captures;
  /** drain() runs imports although the runner was never started. */
  let draining = false;
  const halted = () => pump.stopped && !draining;
  let batches = 0;

  const leaseUntil = () => new Date(ctx.captures.now().getTime() + ctx.leaseMs);

  /** Runs one claimed import until it ends, is lost, or the runner stops. */
  async function runImport(row: ImportRow, owner: string): Promise<void> {
    const tenantId = row.tenantId;
    const log = { tenant_id: tenantId, import_id: row.id };
    const state = {
      entriesDone: row.entriesDone,
      seen: row.seen,
      created: row.created,
      duplicates: row.duplicates,
      skipped: row.skipped,
      invalid: row.invalid,
      errors: [...row.errors],
    };
    let bytesRead = row.bytesRead;
    let renewedAt = Date.now();
    let index = 0;
    let batch: Array<Judged & { kind: 'capture' }> = [];
    let batchForms = new Set<string>();
    let sinceCommit = 0;

    const renew = async () => {
      const held = await saveProgress(db, row.id, owner, { leaseUntil: leaseUntil() });
      if (!held) throw new Lost();
      renewedAt = Date.now();
    };
    const keepAlive = async () => {
      if (Date.now() - renewedAt > ctx.leaseMs / 3) await renew();
    };
    /** Waits until the batch fits under the cap of captures in flight; false when the runner stops meanwhile. */
    const admit = async (n: number): Promise<boolean> => {
      for (;;) {
        if (halted()) return false;
        if ((await capturesInFlight(db, tenantId, row.id)) + n <= ctx.maxInFlight) return true;
        await keepAlive();
        await sleep(admissionPollMs);
      }
    };
    /** Commits the batch (the captures not already captured) with the cursor; `final` completes the import. */
    const commit = async (final: boolean): Promise<boolean> => {
      if (batch.length && !(await admit(batch.length))) return false;
      if (halted() && !final) return false;
      await db.transaction(async (tx) => {
        const known = await capturedUrls(
          tx,
          tenantId,
          batch.flatMap((b) => b.forms),
        );
        let created = 0;
        for (const b of batch) {
          if (b.forms.some((f) => known.has(f))) continue;
          await insertNewCapture(tx, ctx.captures, tenantId, b.input, { metadata: b.metadata, importId: row.id });
          created++;
        }
        const now = ctx.captures.now();
        const patch: ImportPatch = {
          entriesDone: index,
          bytesRead: final ? row.sizeBytes : Math.max(bytesRead, row.bytesRead),
          seen: state.seen,
          created: state.created + created,
          duplicates: state.duplicates + batch.length - created,
          skipped: state.skipped,
          invalid: state.invalid,
          errors: state.errors,
          updatedAt: now,
          ...(final
            ? { status: 'completed', finishedAt: now, leaseOwner: null, leaseUntil: null }
            : { leaseUntil: new Date(now.getTime() + ctx.leaseMs) }),
        };
        if (!(await saveProgress(tx, row.id, owner, patch))) throw new Lost();
        state.created += created;
        state.duplicates += batch.length - created;
      });
      ctx.captures.afterCommit();
      renewedAt = Date.now();
      batch = [];
      batchForms = new Set();
      sinceCommit = 0;
      await options.afterBatch?.(++batches);
      return true;
    };

    const opts = { importId: row.id, para: row.para, source: row.source };
    /** An entry that could not be imported: counted `invalid`, the first IMPORT_MAX_ERRORS kept by line. */
    const report = (entry: Entry, message: string) => {
      state.invalid++;
      if (state.errors.length < IMPORT_MAX_ERRORS)
        state.errors.push({
          line: entry.line ?? 0,
          // Without a line (a JSON entry): its place, `bookmarks[3]`, in the reason.
          reason: (entry.line === undefined ? `${place(entry)}: ${message}` : message).slice(0, 500),
        });
    };
    try {
      const entries = guarded(
        parseBookmarks(
          readParts(blobs, tenantId, row.id, row.parts, (n) => (bytesRead = n)),
          PARSER_FORMAT[row.format!],
        ),
      );
      for await (const entry of entries) {
        if (halted()) return await release(row, owner);
        index++;
        if (index <= state.entriesDone) {
          await keepAlive();
          continue;
        }
        sinceCommit++;
        if (entry.kind === 'problem') {
          report(entry, entry.message);
        } else {
          state.seen++;
          const judged = judgeBookmark(entry, opts);
          if (judged.kind === 'skipped') {
            // Not a web page (javascript:, data:, file:…): skipped. An address that cannot be one: invalid, by line.
            if (judged.reason === 'unsupported_scheme') state.skipped++;
            else report(entry, UNUSABLE[judged.reason] ?? judged.reason);
          } else if (judged.forms.some((f) => batchForms.has(f))) state.duplicates++;
          else {
            batch.push(judged);
            for (const f of judged.forms) batchForms.add(f);
          }
        }
        if (batch.length >= ctx.batchSize || sinceCommit >= progressEvery)
          if (!(await commit(false))) return await release(row, owner);
      }
      if (halted()) return await release(row, owner);
      if (!(await commit(true))) return await release(row, owner);
      logger.info({ ...log, ...state, entriesDone: index, errors: state.errors.length }, 'bookmark import completed');
      await deleteParts(blobs, tenantId, row.id, row.parts).catch((err: unknown) =>
        logger.warn({ err, ...log }, 'could not delete a finished import’s file'),
      );
    } catch (err) {
      if (err instanceof Lost) {
        logger.info(log, 'bookmark import no longer held (cancelled, or taken over); stopped');
        return;
      }
      if (err instanceof Unreadable || err instanceof ImportFileMissing) {
        const now = ctx.captures.now();
        const failed = await saveProgress(db, row.id, owner, {
          status: 'failed',
          failure: err.message,
          finishedAt: now,
          updatedAt: now,
          leaseOwner: null,
          leaseUntil: null,
        });
        if (failed) {
          logger.warn({ ...log, reason: err.message }, 'bookmark import failed');
          await deleteParts(blobs, tenantId, row.id, row.parts).catch(() => undefined);
        }
        return;
      }
      // The database or the storage failed: the claim expires (or is released) and the import resumes later.
      await release(row, owner).catch(() => undefined);
      throw err;
    }
  }

  /** Gives the import back (stopping): another runner resumes it after its last committed batch. */
  async function release(row: ImportRow, owner: string): Promise<void> {
    await saveProgress(db, row.id, owner, { leaseOwner: null, leaseUntil: null });
  }

  async function dropAbandonedUploads(): Promise<void> {
    const before = new Date(ctx.captures.now().getTime() - abandonedUploadMs);
    for (const row of await staleUploads(db, before)) await discardImport(ctx, row);
  }

  async function pass(): Promise<number> {
    let total = 0;
    await dropAbandonedUploads();
    const lane = async () => {
      while (!halted()) {
        const owner = randomUUID();
        const row = await claimNext(db, ctx.captures.now(), leaseUntil(), owner);
        if (!row) return;
        total++;
        await runImport(row, owner);
      }
    };
    await Promise.all(Array.from({ length: lanes }, lane));
    return total;
  }

  const pump = createPump({
    pass,
    onError: (err) => logger.warn({ err }, 'bookmark import pass failed; will retry'),
    nextInMs: () => idlePollMs,
  });

  return {
    wake() {
      if (!pump.stopped) void pump.run();
    },
    drain: async () => {
      await pump.settled();
      draining = true;
      try {
        return await pass();
      } finally {
        draining = false;
      }
    },
    start: () => pump.start(),
    async stop() {
      draining = false;
      await pump.stop();
    },
  };
}
