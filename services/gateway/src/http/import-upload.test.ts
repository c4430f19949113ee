import { PassThrough } from 'node:stream';
import type { Request } from 'express';
import { describe, expect, it } from 'vitest';
import { streamUpload } from './import-upload';

const BOUNDARY = 'kgtestboundary';
/** The first bytes of a PNG: file-type names it image/png, so the import refuses it. */
const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489', 'hex');

/** A request whose body arrives in the given chunks, `gapMs` apart (TCP splits a body anywhere). */
function request(chunks: Buffer[], gapMs: number): Request {
  const body = new PassThrough() as PassThrough & { headers: Record<string, string>; complete: boolean };
  body.headers = { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` };
  body.complete = false;
  void (async () => {
    for (const c of chunks) {
      body.write(c);
      await new Promise((r) => setTimeout(r, gapMs));
    }
    body.complete = true;
    body.end();
  })();
  return body as unknown as Request;
}

const options = {
  maxBytes: 1024 * 1024,
  partBytes: 64 * 1024,
  allowedFields: ['format', 'para', 'source'],
  deadline: { graceSeconds: 60, minBytesPerSecond: 1024 },
  onPart: () => Promise.resolve(),
};

describe('streamUpload', () => {
  it('refuses a binary file whose closing boundary comes in a later packet, without a rejection nobody handles', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const head = Buffer.from(
        `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="x.png"\r\nContent-Type: image/png\r\n\r\n`,
      );
      // The file ends (its boundary is seen) in the first packet; the body's end comes 200 ms later.
      const req = request([Buffer.concat([head, PNG, Buffer.from(`\r\n--${BOUNDARY}`)]), Buffer.from('--\r\n')], 200);
      await expect(streamUpload(req, options)).rejects.toMatchObject({
        message: expect.stringMatching(/image\/png, not a bookmark export/),
      });
      await new Promise((r) => setTimeout(r, 300));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });
});
