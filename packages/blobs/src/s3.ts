import {
  CreateBucketCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  NoSuchKey,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { checkKey, type BlobStore } from './port';

export interface S3Options {
  /** e.g. http://127.0.0.1:9000 for MinIO; omit for AWS S3. */
  endpoint?: string;
  region: string;
  bucket: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** Path-style URLs (MinIO and most S3-compatible servers need them). */
  forcePathStyle: boolean;
  /** Create the bucket at start-up when it does not exist. */
  createBucket?: boolean;
  /** Key prefix inside the bucket, e.g. `captures/`. */
  prefix?: string;
}

/** Blobs in S3-compatible object storage (distributed mode and the Helm chart). */
export function createS3BlobStore(opts: S3Options): BlobStore & { ensureBucket(): Promise<void>; close(): void } {
  const client = new S3Client({
    region: opts.region,
    ...(opts.endpoint ? { endpoint: opts.endpoint } : {}),
    forcePathStyle: opts.forcePathStyle,
    credentials: { accessKeyId: opts.accessKeyId, secretAccessKey: opts.secretAccessKey },
  });
  const Bucket = opts.bucket;
  const prefix = opts.prefix ?? '';
  const Key = (key: string) => `${prefix}${checkKey(key)}`;

  return {
    kind: 's3',
    async put(key, body, contentType) {
      await client.send(new PutObjectCommand({ Bucket, Key: Key(key), Body: body, ContentType: contentType }));
    },
    async get(key) {
      try {
        const out = await client.send(new GetObjectCommand({ Bucket, Key: Key(key) }));
        if (!out.Body) return null;
        return Buffer.from(await out.Body.transformToByteArray());
      } catch (err) {
        if (err instanceof NoSuchKey || (err as { name?: string }).name === 'NoSuchKey') return null;
        throw err;
      }
    },
    async delete(key) {
      await client.send(new DeleteObjectCommand({ Bucket, Key: Key(key) }));
    },
    async ready() {
      try {
        await client.send(new HeadBucketCommand({ Bucket }));
        return true;
      } catch {
        return false;
      }
    },
    async ensureBucket() {
      try {
        await client.send(new HeadBucketCommand({ Bucket }));
      } catch (err) {
        if (!opts.createBucket) throw err;
        await client.send(new CreateBucketCommand({ Bucket }));
      }
    },
    close() {
      client.destroy();
    },
  };
}
