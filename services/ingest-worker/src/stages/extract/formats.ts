/** The capture types of SPEC.md (the same enum as the contracts' CaptureContentType). */
export type CaptureContentType = 'tweet' | 'video' | 'repo' | 'article' | 'pdf' | 'audio' | 'note' | 'image';

export type Format = 'html' | 'pdf' | 'docx' | 'doc' | 'image' | 'text';

const BY_MIME: Record<string, Format> = {
  'text/html': 'html',
  'application/xhtml+xml': 'html',
  'application/pdf': 'pdf',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': 'docx',
  'application/msword': 'doc',
  'image/png': 'image',
  'image/jpeg': 'image',
  'image/gif': 'image',
  'image/webp': 'image',
  'text/plain': 'text',
  'text/markdown': 'text',
};

/** Magic bytes first (what the bytes are), then the declared media type. */
export function formatOf(bytes: Uint8Array, mime: string | null): Format | null {
  const head = Buffer.from(bytes.subarray(0, 8));
  if (head.subarray(0, 5).toString('latin1') === '%PDF-') return 'pdf';
  if (head.subarray(0, 4).equals(Buffer.from([0xd0, 0xcf, 0x11, 0xe0]))) return 'doc';
  if (head.subarray(0, 4).equals(Buffer.from([0x50, 0x4b, 0x03, 0x04])))
    return mime === null ||
      BY_MIME[mime] === 'docx' ||
      mime === 'application/zip' ||
      mime === 'application/octet-stream'
      ? 'docx'
      : null;
  if (
    head.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) ||
    head.subarray(0, 3).equals(Buffer.from([0xff, 0xd8, 0xff])) ||
    head.subarray(0, 4).toString('latin1') === 'GIF8' ||
    (head.subarray(0, 4).toString('latin1') === 'RIFF' &&
      Buffer.from(bytes.subarray(8, 12)).toString('latin1') === 'WEBP')
  )
    return 'image';
  return mime ? (BY_MIME[mime] ?? null) : null;
}
