import { randomBytes } from 'node:crypto';
import { chmod, link, mkdir, readFile, stat, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { exportJWK, generateKeyPair, type JWK } from 'jose';
import { keyMaterialFromJwk, type KeyMaterial } from './material';

const SIGNING_KEY_FILE = 'auth-signing-key.jwk.json';
const PEPPER_FILE = 'api-key-pepper';

const isCode = (err: unknown, code: string) => (err as NodeJS.ErrnoException | null)?.code === code;

/**
 * The content of `file`, created with `create()` if absent. Creation is atomic and
 * exclusive: the content goes to a temp file (mode 0600) that is then hard-linked to the
 * final name, which fails if another process got there first; then its content wins.
 */
async function readOrCreate(file: string, create: () => Promise<string>): Promise<string> {
  try {
    const mode = (await stat(file)).mode;
    if (mode & 0o077) await chmod(file, 0o600);
    return await readFile(file, 'utf8');
  } catch (err) {
    if (!isCode(err, 'ENOENT')) throw err;
  }
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  await writeFile(tmp, await create(), { mode: 0o600, flag: 'wx' });
  try {
    await link(tmp, file);
  } catch (err) {
    if (!isCode(err, 'EEXIST')) throw err;
  } finally {
    await unlink(tmp);
  }
  return readFile(file, 'utf8');
}

async function newSigningKey(): Promise<string> {
  const { privateKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519', extractable: true });
  const jwk = await exportJWK(privateKey);
  return JSON.stringify({ ...jwk, kid: `auth-${randomBytes(6).toString('hex')}`, alg: 'EdDSA' });
}

/** Parses a stored key; the error names the file, never its content. */
function parseJwk(text: string, file: string): JWK {
  try {
    return JSON.parse(text) as JWK;
  } catch {
    throw new Error(`${file} is not a valid JWK; move it away to generate a new signing key`);
  }
}

/**
 * Embedded mode (the one-process host): an Ed25519 signing key and a random 32-byte API
 * key pepper, generated on first start and kept under `<dataDir>/keys/` (directory 0700,
 * files 0600), so access tokens and API keys stay valid across restarts.
 */
export async function loadOrCreateKeyMaterial(dataDir: string): Promise<KeyMaterial> {
  const dir = path.join(dataDir, 'keys');
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const file = path.join(dir, SIGNING_KEY_FILE);
  const jwk = parseJwk(await readOrCreate(file, newSigningKey), file);
  const pepper = await readOrCreate(path.join(dir, PEPPER_FILE), async () => randomBytes(32).toString('base64url'));
  return keyMaterialFromJwk(jwk, pepper.trim());
}
