import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll } from 'vitest';
import { blobStoreContract } from './contract-suite';
import { createS3BlobStore } from './s3';

/**
 * The S3 adapter against a real MinIO server: scripts/infra/minio.sh starts it (building it
 * once with go install); when it cannot, this suite fails with the script's output.
 */
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
let store: ReturnType<typeof createS3BlobStore>;

beforeAll(async () => {
  execFileSync('bash', [path.join(root, 'scripts/infra/minio.sh'), 'start'], { stdio: 'inherit' });
  store = createS3BlobStore({
    endpoint: `http://127.0.0.1:${process.env['KG_MINIO_PORT'] ?? '59000'}`,
    region: 'us-east-1',
    bucket: `kg-contract-${Date.now().toString(36)}`,
    accessKeyId: process.env['KG_MINIO_USER'] ?? 'kg-minio',
    secretAccessKey: process.env['KG_MINIO_PASSWORD'] ?? 'kg-minio-local-secret',
    forcePathStyle: true,
    createBucket: true,
  });
  await store.ensureBucket();
}, 1_800_000);
afterAll(() => store?.close());

blobStoreContract('S3 (MinIO)', () => store);
