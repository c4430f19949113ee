import { z } from 'zod';
import { CaptureSource } from './captures';
import { PageQuery, Timestamp, pageOf, text } from './common';
import { idSchema } from './ids';

/**
 * Bookmark imports: a bookmark export uploaded once (POST /imports), kept in the blob store and
 * read in the background by the captures service, each bookmark becoming a URL capture.
 */

export const ImportId = idSchema('import').meta({ description: 'Import identifier, e.g. imp_01jd…' });

export const IMPORT_FORMATS = ['netscape-html', 'pocket-csv', 'karakeep-json'] as const;
export const ImportFormat = z.enum(IMPORT_FORMATS).meta({
  id: 'ImportFormat',
  description:
    "`netscape-html`: the bookmark HTML every browser, Raindrop, Linkwarden, Karakeep and Pocket export; `pocket-csv`: Pocket's CSV export; `karakeep-json`: Karakeep's JSON export",
});
export type ImportFormat = z.infer<typeof ImportFormat>;

export const ImportStatus = z.enum(['queued', 'running', 'completed', 'failed', 'cancelled']).meta({
  id: 'ImportStatus',
  description:
    '`queued`: waits its turn (one import runs per tenant at a time); `running`: being read; `completed`, `failed` (see `failure`) and `cancelled` are final',
});
export type ImportStatus = z.infer<typeof ImportStatus>;

export const ImportCounts = z
  .object({
    seen: z.number().int().min(0).meta({ description: 'Bookmarks read so far' }),
    created: z.number().int().min(0).meta({ description: 'Captures made' }),
    duplicates: z.number().int().min(0).meta({
      description:
        'URLs the tenant had already captured (exactly, or in their normalised form), or seen earlier in the file',
    }),
    skipped: z
      .number()
      .int()
      .min(0)
      .meta({ description: 'Addresses that are not http(s) pages (javascript:, data:, file:, …)' }),
    invalid: z.number().int().min(0).meta({ description: 'Entries that could not be read (listed in `errors`)' }),
  })
  .meta({ id: 'ImportCounts' });
export type ImportCounts = z.infer<typeof ImportCounts>;

export const ImportError = z
  .object({
    line: z.number().int().min(0).meta({ description: 'Line in the file (1-based); 0 when the format does not say' }),
    reason: z.string(),
  })
  .meta({ id: 'ImportError' });
export type ImportError = z.infer<typeof ImportError>;

/** The most entries `errors` keeps. */
export const IMPORT_MAX_ERRORS = 100;

export const Import = z
  .object({
    id: ImportId,
    status: ImportStatus,
    format: ImportFormat,
    filename: z.string(),
    size_bytes: z.number().int().min(0),
    para: z.boolean().meta({ description: 'Folders also become PARA items (done by the ingest pipeline)' }),
    source: CaptureSource.meta({ description: 'The `source` of every capture the import makes' }),
    progress: z.object({ bytes_read: z.number().int().min(0), size_bytes: z.number().int().min(0) }),
    counts: ImportCounts,
    errors: z.array(ImportError).meta({
      description: `The first ${IMPORT_MAX_ERRORS} entries that could not be imported, by line`,
    }),
    failure: z.string().nullable().meta({ description: 'Why the whole import failed (status `failed`)' }),
    created_at: Timestamp,
    updated_at: Timestamp,
    finished_at: Timestamp.nullable(),
  })
  .meta({ id: 'Import' });
export type Import = z.infer<typeof Import>;

export const ImportList = pageOf(Import).meta({ id: 'ImportList' });
export const ListImportsQuery = PageQuery.extend({}).strict();

/** The form fields of POST /imports besides `file`. */
export const ImportOptions = z
  .object({
    format: ImportFormat.optional().meta({ description: 'The file format; detected from the content when omitted' }),
    para: z
      .enum(['true', 'false'])
      .default('false')
      .transform((v) => v === 'true')
      .meta({ description: 'Folders also become PARA items (default false)' }),
    source: CaptureSource.default('api').meta({ description: 'Recorded on each capture (default `api`)' }),
  })
  .strict();

/**
 * The gateway hands the file over in parts (at most IMPORT_PART_BYTES each, base64), so neither
 * side holds a large file: `open` reserves an id (and a place among the tenant's active
 * imports), `putPart` stores each part in the blob store, `start` queues it.
 */
export const IMPORT_PART_BYTES = 4 * 1024 * 1024;

export const OpenImportInput = z.object({}).strict();
export const OpenedImport = z.object({ id: ImportId });

export const PutImportPartInput = z.object({
  id: ImportId,
  part: z.number().int().min(0).max(100_000),
  bytes_base64: z.base64().max(Math.ceil(IMPORT_PART_BYTES / 3) * 4),
});

export const StartImportInput = z.object({
  id: ImportId,
  filename: text({ min: 1, max: 255 }),
  size_bytes: z.number().int().min(0),
  parts: z.number().int().min(0).max(100_000),
  format: ImportFormat.optional(),
  para: z.boolean(),
  source: CaptureSource,
});
export type StartImportInput = z.infer<typeof StartImportInput>;

/** `metadata.import` of a capture made by an import (the ingest worker reads it). */
export const CaptureImportMetadata = z
  .object({
    import_id: ImportId,
    folder: z.array(z.string()).meta({ description: 'Folder path, outermost first' }),
    tags: z.array(z.string()).meta({ description: "Folder names then the bookmark's own tags, deduplicated, trimmed" }),
    added_at: Timestamp.nullable(),
    note: z.string().max(5000).nullable(),
    para: z.boolean(),
  })
  .meta({ id: 'CaptureImportMetadata' });
export type CaptureImportMetadata = z.infer<typeof CaptureImportMetadata>;
