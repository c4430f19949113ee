import { existsSync } from 'node:fs';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { exportJWK, generateKeyPair, importJWK, type JWK } from 'jose';

type SigningKey = Awaited<ReturnType<typeof importJWK>>;

/** The auth service's secrets: the Ed25519 signing key and the API key pepper. */
export interface KeyMaterial {
  kid: string;
  privateKey: SigningKey;
  publicJwk: JWK;
  pepper: string;
}

async function fromJwk(jwk: JWK, pepper: string): Promise<KeyMaterial> {
  if (jwk.kty !== 'OKP' || jwk.crv !== 'Ed25519' || !jwk.d)
    throw new Error('AUTH_SIGNING_KEY must be a private Ed25519 JWK');
  const kid = jwk.kid ?? 'auth-1';
  const privateKey = await importJWK({ ...jwk, alg: 'EdDSA' }, 'EdDSA');
  const publicJwk: JWK = { kty: jwk.kty, crv: jwk.crv, x: jwk.x, kid, alg: 'EdDSA', use: 'sig' };
  return { kid, privateKey, publicJwk, pepper };
}

/** Distributed mode: the key and pepper come from secrets (env). */
export function keyMaterialFromSecrets(signingKeyJson: string, pepper: string): Promise<KeyMaterial> {
  return fromJwk(JSON.parse(signingKeyJson) as JWK, pepper);
}

/**
 * Embedded mode: generated on first start and kept under `<dataDir>/keys/` (mode 0600),
 * so tokens and API keys stay valid across restarts.
 */
export async function loadOrCreateKeyMaterial(dataDir: string): Promise<KeyMaterial> {
  const dir = path.join(dataDir, 'keys');
  const file = path.join(dir, 'auth-secrets.json');
  if (existsSync(file)) {
    const saved = JSON.parse(await readFile(file, 'utf8')) as { signingKey: JWK; pepper: string };
    return fromJwk(saved.signingKey, saved.pepper);
  }
  const { privateKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519', extractable: true });
  const signingKey = { ...(await exportJWK(privateKey)), kid: `auth-${randomBytes(6).toString('hex')}` };
  const pepper = randomBytes(32).toString('base64url');
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await writeFile(file, JSON.stringify({ signingKey, pepper }), { mode: 0o600 });
  await chmod(file, 0o600);
  return fromJwk(signingKey, pepper);
}
