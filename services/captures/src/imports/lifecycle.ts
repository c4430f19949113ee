import { sql } from 'drizzle-orm';
import { detectFormat, type BookmarkFormat } from '@kg/bookmarks';
import {
  AppError,
  IMPORT_PART_BYTES,
  conflict,
  invalid,
  isId,
  notFound,
  rateLimited,
  type Import,
  type ImportFormat,
  type StartImportInput,
} from '@kg/contracts';
import { newId, type Tx } from '@kg/db';
import {
  countActive,
  deleteImport,
  findImport,
  insertImport,
  listImports,
  updateImport,
  type ImportRow,
} from '../store/imports';
import type { ImportsContext } from './context';
import { deleteParts, partKey } from './files';
import { toImport } from './records';

/** Retry-After of a refused import: when one of the tenant's imports ends is not known. */
const BUSY_RETRY_SECONDS = 60;

/** The parsers' names of the formats (@kg/bookmarks), by the API's. */
export const PARSER_FORMAT: Record<ImportFormat, BookmarkFormat> = {
  'netscape-html': 'html',
  'pocket-csv': 'pocket-csv',
  'karakeep-json': 'karakeep-json',
};
const API_FORMAT = Object.fromEntries(Object.entries(PARSER_FORMAT).map(([a, p]) => [p, a])) as Record<
  BookmarkFormat,
  ImportFormat
>;

const FINAL = new Set(['completed', 'failed', 'cancelled']);

/** The tenant's import, started or (`uploading`) not; malformed and other tenants' ids are 404. */
async function found(db: ImportsContext['captures']['db'] | Tx, tenantId: string, id: string, lock = false) {
  const row = isId('import', id) ? await findImport(db, tenantId, id, lock) : null;
  if (!row) throw notFound('Import');
  return row;
}

/** Only one open or count of a tenant's imports at a time: the limit cannot be passed by racing. */
const lockTenant = (tx: Tx, tenantId: string) =>
  tx.execute(sql`select pg_advisory_xact_lock(hashtext(${'imports:' + tenantId}))`);

/**
 * Reserves an import for an upload: refused (429) when the tenant already has IMPORT_MAX_ACTIVE
 * imports being uploaded, queued or running. The row stays `uploading` (never shown) until start.
 */
export async function openImport(ctx: ImportsContext, tenantId: string): Promise<{ id: string }> {
  return ctx.captures.db.transaction(async (tx) => {
    await lockTenant(tx, tenantId);
    if ((await countActive(tx, tenantId)) >= ctx.maxActive)
      throw rateLimited(
        BUSY_RETRY_SECONDS,
        `This tenant already has ${ctx.maxActive} imports queued or running (the limit); retry when one has finished`,
      );
    const now = ctx.captures.now();
    const row = await insertImport(tx, { id: newId('import'), tenantId, createdAt: now, updatedAt: now });
    return { id: row.id };
  });
}

const uploading = async (ctx: ImportsContext, tenantId: string, id: string): Promise<ImportRow> => {
  const row = await found(ctx.captures.db, tenantId, id);
  if (row.status !== 'uploading') throw conflict('The import has already been started');
  return row;
};

/** Stores part `part` of the file (parts come in order; sending one again replaces it). */
export async function putImportPart(
  ctx: ImportsContext,
  tenantId: string,
  id: string,
  part: number,
  bytes: Buffer,
): Promise<void> {
  const row = await uploading(ctx, tenantId, id);
  if (part > row.parts) throw invalid(`Part ${part} comes before part ${row.parts}`);
  if (bytes.length > IMPORT_PART_BYTES) throw invalid('A part is larger than 4 MiB');
  await ctx.captures.blobs.put(partKey(tenantId, id, part), bytes, 'application/octet-stream');
  await updateImport(ctx.captures.db, tenantId, id, { parts: Math.max(row.parts, part + 1) });
}

const tooLarge = (max: number) =>
  new AppError('payload_too_large', `The file exceeds the import limit of ${max} bytes (${max / 1024 / 1024} MiB)`);

/** The format of the file from its first bytes (the same detection as the CLI's), or 400. */
async function detect(ctx: ImportsContext, row: ImportRow): Promise<ImportFormat> {
  const first = await ctx.captures.blobs.get(partKey(row.tenantId, row.id, 0));
  const format = first ? detectFormat(first.subarray(0, 4096).toString('utf8')) : undefined;
  if (!format)
    throw invalid(
      'The file is none of the formats imported (Netscape bookmark HTML, Pocket CSV, Karakeep JSON); name it in `format` if it is one of them',
      [
        { path: 'file', message: 'format not recognised' },
        { path: 'format', message: 'netscape-html, pocket-csv or karakeep-json' },
      ],
    );
  return API_FORMAT[format];
}

/** Drops an import that will never run: its parts, then its row. */
export async function discardImport(ctx: ImportsContext, row: ImportRow): Promise<void> {
  await deleteParts(ctx.captures.blobs, row.tenantId, row.id, row.parts);
  await deleteImport(ctx.captures.db, row.tenantId, row.id);
}

/**
 * The file is stored: queues the import (it runs when the tenant's earlier ones have finished).
 * A file over IMPORT_MAX_BYTES (413), empty or of no known format (400) is discarded with its parts.
 */
export async function startImport(ctx: ImportsContext, tenantId: string, input: StartImportInput): Promise<Import> {
  const row = await uploading(ctx, tenantId, input.id);
  let format: ImportFormat;
  try {
    if (input.size_bytes > ctx.maxBytes) throw tooLarge(ctx.maxBytes);
    if (input.parts !== row.parts) throw invalid(`The upload has ${row.parts} parts, not ${input.parts}`);
    if (input.size_bytes === 0)
      throw invalid('The file is empty: there is no bookmark to import', [{ path: 'file', message: 'empty' }]);
    format = input.format ?? (await detect(ctx, row));
  } catch (err) {
    await discardImport(ctx, row);
    throw err;
  }
  const now = ctx.captures.now();
  const started = await updateImport(ctx.captures.db, tenantId, row.id, {
    status: 'queued',
    queuedAt: now,
    format,
    filename: input.filename,
    sizeBytes: input.size_bytes,
    para: input.para,
    source: input.source,
    updatedAt: now,
  });
  ctx.wake();
  return toImport(started);
}

/** The upload failed: drops an import not started yet, with its parts. `aborted: false` once started. */
export async function abortImport(ctx: ImportsContext, tenantId: string, id: string): Promise<{ aborted: boolean }> {
  const row = await found(ctx.captures.db, tenantId, id);
  if (row.status !== 'uploading') return { aborted: false };
  await discardImport(ctx, row);
  return { aborted: true };
}

const shown = (row: ImportRow): ImportRow => {
  if (row.status === 'uploading') throw notFound('Import');
  return row;
};

export const getImport = async (ctx: ImportsContext, tenantId: string, id: string): Promise<Import> =>
  toImport(shown(await found(ctx.captures.db, tenantId, id)));

export async function pageOfImports(ctx: ImportsContext, tenantId: string, q: { page: number; per_page: number }) {
  const { rows, total } = await listImports(ctx.captures.db, tenantId, {
    limit: q.per_page,
    offset: (q.page - 1) * q.per_page,
  });
  return { data: rows.map(toImport), total, page: q.page, per_page: q.per_page };
}

/**
 * Stops a queued or running import (409 once finished). The captures it made stay; a runner
 * working on it notices at its next batch, whose transaction then changes nothing.
 */
export async function cancelImport(ctx: ImportsContext, tenantId: string, id: string): Promise<Import> {
  const row = await ctx.captures.db.transaction(async (tx) => {
    const current = shown(await found(tx, tenantId, id, true));
    if (FINAL.has(current.status)) throw conflict(`The import has already finished (${current.status})`);
    const now = ctx.captures.now();
    return updateImport(tx, tenantId, id, {
      status: 'cancelled',
      finishedAt: now,
      updatedAt: now,
      leaseOwner: null,
      leaseUntil: null,
    });
  });
  await deleteParts(ctx.captures.blobs, tenantId, id, row.parts).catch((err: unknown) =>
    ctx.captures.logger.warn({ err, import_id: id }, 'could not delete a cancelled import’s file'),
  );
  return toImport(row);
}
