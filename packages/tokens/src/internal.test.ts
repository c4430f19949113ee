import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { SignJWT, decodeJwt, importJWK, type JWK } from 'jose';
import {
  createInternalTokenSigner,
  createInternalTokenVerifier,
  generateInternalKeyPair,
  type InternalTokenVerifier,
} from './internal';

const identity = {
  tenantId: 'tnt_01jd8x6q1bf5r3v2m9w7k4t0za',
  subject: 'usr_01jd8x6q1bf5r3v2m9w7k4t0zb',
  credential: { kind: 'jwt' as const, id: 'x' },
};

type Pair = Awaited<ReturnType<typeof generateInternalKeyPair>>;
let gateway: Pair;
let worker: Pair;
let verifier: InternalTokenVerifier;

beforeAll(async () => {
  gateway = await generateInternalKeyPair();
  worker = await generateInternalKeyPair();
  verifier = await createInternalTokenVerifier({ gateway: gateway.publicJwk, 'ingest-worker': worker.publicJwk });
});

afterEach(() => {
  vi.useRealTimers();
});

/** A token shaped like the signer's, with claims of the test's choosing. */
async function handMade(privateJwk: JWK, claims: { iss: string; aud: string; iat: number; exp: number; jti?: string }) {
  const key = await importJWK(privateJwk, 'EdDSA');
  const jwt = new SignJWT({ idn: null })
    .setProtectedHeader({ alg: 'EdDSA' })
    .setIssuer(claims.iss)
    .setAudience(claims.aud)
    .setIssuedAt(claims.iat)
    .setExpirationTime(claims.exp);
  if (claims.jti) jwt.setJti(claims.jti);
  return jwt.sign(key);
}

describe('internal tokens (per-service Ed25519 keys)', () => {
  it('round-trips caller and identity for the intended audience', async () => {
    const signer = await createInternalTokenSigner('gateway', gateway.privateJwk);
    const token = await signer.sign('graph', identity);
    expect(await verifier.verify(token, 'graph')).toEqual({ caller: 'gateway', identity });
  });

  it('carries a random jti, the caller as issuer and a 60 s lifetime', async () => {
    const signer = await createInternalTokenSigner('gateway', gateway.privateJwk);
    const a = decodeJwt(await signer.sign('graph', null));
    const b = decodeJwt(await signer.sign('search', null));
    expect(a.jti).toMatch(/^[0-9a-f-]{36}$/);
    expect(a.jti).not.toBe(b.jti);
    expect(a.iss).toBe('kg-internal:gateway');
    expect(a.aud).toBe('graph');
    expect(a.exp! - a.iat!).toBe(60);
  });

  it('reuses a token per audience and identity for half its lifetime, then signs a new one', async () => {
    const signer = await createInternalTokenSigner('gateway', gateway.privateJwk);
    const start = Date.now();
    vi.useFakeTimers({ now: start, toFake: ['Date'] });
    const first = await signer.sign('graph', identity);
    expect(await signer.sign('graph', identity)).toBe(first);
    expect(await signer.sign('graph', null)).not.toBe(first);
    expect(await signer.sign('graph', { ...identity, subject: 'usr_other' })).not.toBe(first);
    expect(await signer.sign('auth', identity)).not.toBe(first);
    vi.setSystemTime(start + 29_000);
    expect(await signer.sign('graph', identity)).toBe(first);
    vi.setSystemTime(start + 30_000);
    const next = await signer.sign('graph', identity);
    expect(next).not.toBe(first);
    expect(await verifier.verify(next, 'graph')).toEqual({ caller: 'gateway', identity });
  });

  it('remembers a verified token only while it would still verify, and never a refused one', async () => {
    const signer = await createInternalTokenSigner('gateway', gateway.privateJwk);
    const start = Date.now();
    vi.useFakeTimers({ now: start, toFake: ['Date'] });
    const token = await signer.sign('graph', identity);
    expect(await verifier.verify(token, 'graph')).toEqual({ caller: 'gateway', identity });
    expect(await verifier.verify(token, 'graph')).toEqual({ caller: 'gateway', identity });
    // Another audience is checked again (and refused), whatever was remembered for this one.
    await expect(verifier.verify(token, 'auth')).rejects.toThrow(/ERR_JWT_CLAIM_VALIDATION_FAILED/);
    await expect(verifier.verify(token, 'auth')).rejects.toThrow(/ERR_JWT_CLAIM_VALIDATION_FAILED/);
    // Past its lifetime and the tolerance, the remembered claims are gone with it.
    vi.setSystemTime(start + 66_000);
    await expect(verifier.verify(token, 'graph')).rejects.toThrow(/ERR_JWT_EXPIRED/);
  });

  it('rejects another audience', async () => {
    const token = await (await createInternalTokenSigner('gateway', gateway.privateJwk)).sign('graph', null);
    await expect(verifier.verify(token, 'auth')).rejects.toThrow(/ERR_JWT_CLAIM_VALIDATION_FAILED/);
  });

  it('rejects a token signed with a key that is not the named service’s (a wrong or stolen-name key)', async () => {
    const stranger = await generateInternalKeyPair();
    const forged = await (await createInternalTokenSigner('gateway', stranger.privateJwk)).sign('graph', null);
    await expect(verifier.verify(forged, 'graph')).rejects.toThrow(/rejected/);
  });

  it('rejects one service speaking as another: the ingest worker’s key under the gateway’s name', async () => {
    const impostor = await (await createInternalTokenSigner('gateway', worker.privateJwk)).sign('auth', identity);
    await expect(verifier.verify(impostor, 'auth')).rejects.toThrow(/rejected/);
    // …while the same key under its own name is fine (and names the worker, not the gateway).
    const honest = await (await createInternalTokenSigner('ingest-worker', worker.privateJwk)).sign('auth', null);
    expect((await verifier.verify(honest, 'auth')).caller).toBe('ingest-worker');
  });

  it('rejects a service it holds no public key for, garbage and foreign issuers', async () => {
    const other = await generateInternalKeyPair();
    const unknown = await (await createInternalTokenSigner('search', other.privateJwk)).sign('graph', null);
    await expect(verifier.verify(unknown, 'graph')).rejects.toThrow(/unknown service/);
    await expect(verifier.verify('garbage', 'graph')).rejects.toThrow(/not a JWT/);
    const now = Math.floor(Date.now() / 1000);
    const foreign = await handMade(gateway.privateJwk, { iss: 'kg-auth', aud: 'graph', iat: now, exp: now + 60 });
    await expect(verifier.verify(foreign, 'graph')).rejects.toThrow(/not an internal token/);
  });

  it('rejects a token without jti', async () => {
    const now = Math.floor(Date.now() / 1000);
    const token = await handMade(gateway.privateJwk, {
      iss: 'kg-internal:gateway',
      aud: 'graph',
      iat: now,
      exp: now + 60,
    });
    await expect(verifier.verify(token, 'graph')).rejects.toThrow(/ERR_JWT_CLAIM_VALIDATION_FAILED/);
  });

  it('rejects an expired token, and one that claims a lifetime beyond 60 s', async () => {
    const signer = await createInternalTokenSigner('gateway', gateway.privateJwk);
    vi.useFakeTimers({ now: Date.now() - 70_000, toFake: ['Date'] });
    const old = await signer.sign('graph', null);
    vi.useRealTimers();
    await expect(verifier.verify(old, 'graph')).rejects.toThrow(/ERR_JWT_EXPIRED/);
    const now = Math.floor(Date.now() / 1000);
    const longLived = await handMade(gateway.privateJwk, {
      iss: 'kg-internal:gateway',
      aud: 'graph',
      iat: now - 120,
      exp: now + 3600,
      jti: 'j',
    });
    await expect(verifier.verify(longLived, 'graph')).rejects.toThrow(/ERR_JWT_EXPIRED/);
  });

  it('tolerates 5 s of clock skew either way, and not more', async () => {
    const signer = await createInternalTokenSigner('gateway', gateway.privateJwk);
    const at = (offsetMs: number) => {
      vi.useFakeTimers({ now: Date.now() + offsetMs, toFake: ['Date'] });
      const token = signer.sign('graph', null);
      vi.useRealTimers();
      return token;
    };
    // Signed by a caller whose clock is 3 s ahead (iat in the future) or whose token expired 3 s ago.
    await expect(verifier.verify(await at(3_000), 'graph')).resolves.toMatchObject({ caller: 'gateway' });
    await expect(verifier.verify(await at(-63_000), 'graph')).resolves.toMatchObject({ caller: 'gateway' });
    await expect(verifier.verify(await at(-68_000), 'graph')).rejects.toThrow(/ERR_JWT_EXPIRED/);
    await expect(verifier.verify(await at(10_000), 'graph')).rejects.toThrow(/ERR_JWT_CLAIM_VALIDATION_FAILED/);
  });

  it('accepts every key listed for a service (rotation)', async () => {
    const next = await generateInternalKeyPair();
    const rotating = await createInternalTokenVerifier({ gateway: [gateway.publicJwk, next.publicJwk] });
    for (const pair of [gateway, next]) {
      const token = await (await createInternalTokenSigner('gateway', pair.privateJwk)).sign('graph', null);
      expect((await rotating.verify(token, 'graph')).caller).toBe('gateway');
    }
  });

  it('refuses malformed keys at creation without echoing them', async () => {
    const bad = { kty: 'OKP', crv: 'Ed25519', x: 'c2VjcmV0', d: 'c2VjcmV0LXByaXZhdGU' };
    const err: unknown = await createInternalTokenSigner('graph', bad).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toContain('graph');
    expect((err as Error).message).not.toContain(bad.d);
    await expect(createInternalTokenSigner('graph', gateway.publicJwk)).rejects.toThrow(/not a private key/);
    await expect(createInternalTokenVerifier({ para: { kty: 'OKP', crv: 'Ed25519', x: '!' } })).rejects.toThrow(
      /public key of para/,
    );
  });
});
