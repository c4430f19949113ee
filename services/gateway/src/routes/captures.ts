import { z } from 'zod';
import {
  ById,
  Capture,
  CaptureActivityList,
  CaptureContentQuery,
  CaptureList,
  CaptureProvenance,
  CapturedUrl,
  CheckCaptureQuery,
  CreateCaptureInput,
  ListCapturesQuery,
  UploadCaptureInput,
} from '@kg/contracts';
import { parsePart } from '../http/validate';
import { ACCEPTED_TYPES, readUpload } from '../http/uploads';
import { defineRoute, noContent, ok, type Route } from './route';

const base = { tag: 'Captures', auth: 'required', service: 'captures' } as const;
const one = (description: string) => ({ status: 200, description, schema: Capture });

/** The optional fields of an upload, validated like any request field. */
const UploadFields = UploadCaptureInput.pick({ title: true, why: true }).strict();

/** The multipart body, for the OpenAPI document. */
const UploadForm = z.strictObject({
  file: z.string().meta({
    format: 'binary',
    description: `At most 25 MiB; accepted (detected from the content): ${ACCEPTED_TYPES.join(', ')}`,
  }),
  title: UploadCaptureInput.shape.title,
  why: UploadCaptureInput.shape.why,
});

/** Captures (SPEC.md section 4): submission, upload, reads and the lifecycle actions. */
export const captureRoutes = (limits: { uploadMaxBytes: number }): Route[] => [
  defineRoute({
    ...base,
    method: 'post',
    path: '/captures',
    operationId: 'createCapture',
    summary: 'Submit a capture: stored as pending and queued for processing',
    body: CreateCaptureInput,
    success: { status: 201, description: 'Created and queued', schema: Capture },
    async handle(req, peers) {
      return ok(await peers.captures.as(req.identity).create(req.body), 201);
    },
  }),
  defineRoute({
    ...base,
    method: 'post',
    path: '/captures/upload',
    operationId: 'uploadCapture',
    summary: 'Upload a file as a capture (type detected from the content; 413 over 25 MiB, 415 when not accepted)',
    multipart: UploadForm,
    success: { status: 201, description: 'Created and queued', schema: Capture },
    async handle(req, peers) {
      const upload = await readUpload(req.raw, { maxBytes: limits.uploadMaxBytes, allowedFields: ['title', 'why'] });
      const fields = parsePart(UploadFields, upload.fields, 'body');
      const capture = await peers.captures.as(req.identity).upload({
        filename: upload.filename.slice(0, 255),
        mime_type: upload.mimeType,
        content_type: upload.contentType,
        bytes_base64: upload.bytes.toString('base64'),
        ...(fields.title !== undefined ? { title: fields.title } : {}),
        ...(fields.why !== undefined ? { why: fields.why } : {}),
      });
      return ok(capture, 201);
    },
  }),
  defineRoute({
    ...base,
    method: 'get',
    path: '/captures/check',
    operationId: 'checkCapturedUrl',
    summary: 'Was this URL captured? 200 with the latest capture of it, 404 if not',
    query: CheckCaptureQuery,
    success: { status: 200, description: 'Captured', schema: CapturedUrl },
    errors: [404],
    async handle(req, peers) {
      return ok(await peers.captures.as(req.identity).check(req.query));
    },
  }),
  defineRoute({
    ...base,
    method: 'get',
    path: '/captures',
    operationId: 'listCaptures',
    summary: 'List captures, newest first, optionally by status',
    query: ListCapturesQuery,
    success: { status: 200, description: 'A page of captures', schema: CaptureList },
    async handle(req, peers) {
      return ok(await peers.captures.as(req.identity).list(req.query));
    },
  }),
  defineRoute({
    ...base,
    method: 'get',
    path: '/captures/:id',
    operationId: 'getCapture',
    summary: 'Capture details with metadata and processing status',
    params: ById,
    success: one('The capture'),
    errors: [404],
    async handle(req, peers) {
      return ok(await peers.captures.as(req.identity).get({ id: req.params.id }));
    },
  }),
  defineRoute({
    ...base,
    method: 'get',
    path: '/captures/:id/content',
    operationId: 'getCaptureContent',
    summary:
      'The original content with its type (omitted format), or the processed markdown (format=markdown; 404 until processed)',
    params: ById,
    query: CaptureContentQuery,
    success: {
      status: 200,
      description: 'The content',
      media: [
        'text/markdown; charset=utf-8',
        'text/plain; charset=utf-8',
        ...ACCEPTED_TYPES.filter((t) => !t.startsWith('text/')),
      ],
    },
    errors: [404],
    async handle(req, peers) {
      const content = await peers.captures.as(req.identity).content({ id: req.params.id, ...req.query });
      return {
        status: 200,
        body: Buffer.from(content.bytes_base64, 'base64'),
        headers: { 'Content-Type': content.content_type },
      };
    },
  }),
  ...(['retry', 'reingest', 'archive', 'unarchive', 'dismiss'] as const).map((action) =>
    defineRoute({
      ...base,
      method: 'post',
      path: `/captures/:id/${action}`,
      operationId: `${action}Capture`,
      summary: ACTION_SUMMARY[action],
      params: ById,
      success: one(`The capture after ${action}`),
      errors: action === 'retry' || action === 'reingest' ? [404, 409] : [404],
      async handle(req, peers) {
        return ok(await peers.captures.as(req.identity)[action]({ id: req.params.id }));
      },
    }),
  ),
  defineRoute({
    ...base,
    method: 'delete',
    path: '/captures/:id',
    operationId: 'deleteCapture',
    summary: 'Delete a capture, its activity, provenance and stored file (the nodes it produced stay)',
    params: ById,
    success: { status: 204, description: 'Deleted' },
    errors: [404],
    async handle(req, peers) {
      await peers.captures.as(req.identity).delete({ id: req.params.id });
      return noContent();
    },
  }),
  defineRoute({
    ...base,
    method: 'get',
    path: '/captures/:id/activity',
    operationId: 'getCaptureActivity',
    summary: 'Timeline of the capture, oldest first',
    params: ById,
    success: { status: 200, description: 'The timeline', schema: CaptureActivityList },
    errors: [404],
    async handle(req, peers) {
      return ok(await peers.captures.as(req.identity).activity({ id: req.params.id }));
    },
  }),
  defineRoute({
    ...base,
    method: 'get',
    path: '/captures/:id/provenance',
    operationId: 'getCaptureProvenance',
    summary: 'Every processing run with its stages: timestamps, model, input digest and output',
    params: ById,
    success: { status: 200, description: 'The processing chain', schema: CaptureProvenance },
    errors: [404],
    async handle(req, peers) {
      return ok(await peers.captures.as(req.identity).provenance({ id: req.params.id }));
    },
  }),
];

const ACTION_SUMMARY = {
  retry: 'Re-queue a failed capture (409 unless failed)',
  reingest: 'Reprocess through the whole pipeline, replacing the nodes made before (409 while processing)',
  archive: 'Archive a capture (keeps its data; idempotent)',
  unarchive: 'Return an archived or dismissed capture to the status it had before (idempotent)',
  dismiss: 'Dismiss a capture (keeps its data; idempotent)',
} as const;
