/**
 * Blob storage port: whole objects by key (`<tenant>/<capture>`), at most a few tens of MB.
 * Adapters: a directory under DATA_DIR (embedded mode) and S3-compatible object storage.
 */
export interface BlobStore {
  readonly kind: 'fs' | 's3';
  /** Stores (or replaces) the object. */
  put(key: string, body: Buffer, contentType: string): Promise<void>;
  /** The object's bytes, or null when there is none. */
  get(key: string): Promise<Buffer | null>;
  /** Removes the object; removing a missing one is not an error. */
  delete(key: string): Promise<void>;
  ready(): Promise<boolean>;
}

const KEY = /^[A-Za-z0-9_-]{1,100}(\/[A-Za-z0-9_.-]{1,200})*$/;

/** Keys are ids joined by `/`: never `..`, never absolute, never empty. */
export function checkKey(key: string): string {
  if (!KEY.test(key) || key.split('/').some((part) => part === '.' || part === '..'))
    throw new Error(`invalid blob key: ${JSON.stringify(key)}`);
  return key;
}
