import type { Capture, UploadCaptureInput } from '@kg/contracts';
import { newId } from '@kg/db';
import type { CapturesContext } from './context';
import { createCapture } from './lifecycle';

/**
 * An upload the gateway has checked (size, detected type): the file goes to blob storage
 * under `<tenant>/<capture>`, then the capture is created as any other. A failed insert
 * removes the file again.
 */
export async function uploadCapture(
  ctx: CapturesContext,
  tenantId: string,
  input: UploadCaptureInput,
): Promise<Capture> {
  const id = newId('capture');
  const blobKey = `${tenantId}/${id}`;
  const bytes = Buffer.from(input.bytes_base64, 'base64');
  await ctx.blobs.put(blobKey, bytes, input.mime_type);
  try {
    return await createCapture(
      ctx,
      tenantId,
      {
        title: input.title ?? input.filename,
        content_type: input.content_type,
        source: 'api',
        ...(input.why !== undefined ? { why: input.why } : {}),
      },
      { id, file: { blobKey, mimeType: input.mime_type, filename: input.filename, sizeBytes: bytes.length } },
    );
  } catch (err) {
    await ctx.blobs.delete(blobKey).catch(() => undefined);
    throw err;
  }
}
