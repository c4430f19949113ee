export { type BlobStore, checkKey } from './port';
export { createFsBlobStore } from './fs';
export { createS3BlobStore, type S3Options } from './s3';
