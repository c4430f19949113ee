import { z } from 'zod';
import { ById, IMPORT_PART_BYTES, Import, ImportList, ImportOptions, ListImportsQuery } from '@kg/contracts';
import type { GatewayHttpConfig } from '../config';
import { streamUpload } from '../http/import-upload';
import type { UploadReadBounds } from '../http/upload-deadline';
import { parsePart } from '../http/validate';
import { defineRoute, ok, type Route } from './route';

const base = { tag: 'Imports', auth: 'required', service: 'captures' } as const;

export interface ImportLimits {
  maxBytes: number;
  /** How long the file may take to arrive (the uploads' rule: 408 past it). */
  readDeadline: UploadReadBounds;
}

export const importLimits = (config: GatewayHttpConfig): ImportLimits => ({
  maxBytes: config.IMPORT_MAX_BYTES,
  readDeadline: {
    graceSeconds: config.UPLOAD_READ_TIMEOUT_SECONDS,
    minBytesPerSecond: config.UPLOAD_READ_MIN_BYTES_PER_SECOND,
  },
});

/** The multipart body, for the OpenAPI document. */
const ImportForm = z.strictObject({
  file: z.string().meta({
    format: 'binary',
    description:
      "A Netscape bookmark HTML export (every browser, Raindrop, Linkwarden, Karakeep, Pocket's HTML), Pocket's CSV export or Karakeep's JSON export; at most 100 MiB by default (IMPORT_MAX_BYTES)",
  }),
  format: ImportOptions.shape.format,
  para: z.enum(['true', 'false']).optional().meta({ description: 'Folders also become PARA items (default false)' }),
  source: ImportOptions.shape.source,
});

const location = (id: string) => ({ Location: `/api/v1/imports/${id}` });
/** A file name the API can keep: no NUL, at most 255 characters. */
const fileName = (name: string) =>
  name
    .replace(/\u0000/g, '')
    .slice(0, 255)
    .trim() || 'bookmarks';

/** Bookmark imports: a bookmark export read in the background, each bookmark becoming a URL capture. */
export const importRoutes = (limits: ImportLimits): Route[] => [
  defineRoute({
    ...base,
    method: 'post',
    path: '/imports',
    operationId: 'createImport',
    summary:
      "Import a bookmark file (Netscape HTML, Pocket CSV, Karakeep JSON; format detected unless named): 202 with the import, read in the background; 400 when the format is none of them or the file is empty, 415 for a binary file (PDF, ZIP, image), 408 when the body arrives too slowly, 413 over IMPORT_MAX_BYTES, 429 past the tenant's active imports",
    multipart: ImportForm,
    success: { status: 202, description: 'Queued; follow it at Location', schema: Import },
    errors: [408, 429],
    async handle(req, peers) {
      const imports = peers.captures.as(req.identity).imports;
      // Refused (429) before the file is read when the tenant has too many imports under way.
      const { id } = await imports.open({});
      try {
        const upload = await streamUpload(req.raw, {
          maxBytes: limits.maxBytes,
          partBytes: IMPORT_PART_BYTES,
          allowedFields: ['format', 'para', 'source'],
          deadline: limits.readDeadline,
          onPart: async (part, bytes) => {
            await imports.putPart({ id, part, bytes_base64: bytes.toString('base64') });
          },
        });
        const options = parsePart(ImportOptions, upload.fields, 'body');
        const started = await imports.start({
          id,
          filename: fileName(upload.filename),
          size_bytes: upload.size,
          parts: upload.parts,
          para: options.para,
          source: options.source,
          ...(options.format ? { format: options.format } : {}),
        });
        return { status: 202, body: started, headers: location(id) };
      } catch (err) {
        // The upload failed: its parts and its place among the tenant's imports are given back.
        await imports.abort({ id }).catch(() => undefined);
        throw err;
      }
    },
  }),
  defineRoute({
    ...base,
    method: 'get',
    path: '/imports',
    operationId: 'listImports',
    summary: "The tenant's bookmark imports, newest first, with their progress and counts",
    query: ListImportsQuery,
    success: { status: 200, description: 'A page of imports', schema: ImportList },
    async handle(req, peers) {
      return ok(await peers.captures.as(req.identity).imports.list(req.query));
    },
  }),
  defineRoute({
    ...base,
    method: 'get',
    path: '/imports/:id',
    operationId: 'getImport',
    summary: 'One import: status, progress (bytes read), counts and the entries that could not be imported, by line',
    params: ById,
    success: { status: 200, description: 'The import', schema: Import },
    errors: [404],
    async handle(req, peers) {
      return ok(await peers.captures.as(req.identity).imports.get({ id: req.params.id }));
    },
  }),
  defineRoute({
    ...base,
    method: 'post',
    path: '/imports/:id/cancel',
    operationId: 'cancelImport',
    summary: 'Stop a queued or running import (the captures it already made stay); 409 when it has already finished',
    params: ById,
    success: { status: 202, description: 'Cancelled', schema: Import },
    errors: [404, 409],
    async handle(req, peers) {
      return ok(await peers.captures.as(req.identity).imports.cancel({ id: req.params.id }), 202);
    },
  }),
];
