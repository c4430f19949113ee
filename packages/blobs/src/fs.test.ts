import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { blobStoreContract } from './contract-suite';
import { createFsBlobStore } from './fs';

const dir = mkdtempSync(path.join(tmpdir(), 'kg-blobs-'));
const store = createFsBlobStore(dir);
blobStoreContract('filesystem', () => store);
