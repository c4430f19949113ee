import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { BlobStore } from './port';

/**
 * The behaviour every BlobStore adapter must have, run against each of them (the filesystem
 * one in the unit project, the S3 one against a real MinIO server).
 */
export function blobStoreContract(name: string, store: () => BlobStore) {
  const key = (suffix: string) => `tnt_contract/${Date.now().toString(36)}-${randomBytes(4).toString('hex')}-${suffix}`;

  describe(`BlobStore contract: ${name}`, () => {
    it('is ready', async () => {
      expect(await store().ready()).toBe(true);
    });

    it('returns exactly the bytes it stored, binary and empty alike', async () => {
      const bytes = randomBytes(70_000);
      const k = key('bin');
      await store().put(k, bytes, 'application/octet-stream');
      expect((await store().get(k))?.equals(bytes)).toBe(true);
      const empty = key('empty');
      await store().put(empty, Buffer.alloc(0), 'text/plain');
      expect((await store().get(empty))?.length).toBe(0);
    });

    it('replaces an object on a second put', async () => {
      const k = key('replace');
      await store().put(k, Buffer.from('one'), 'text/plain');
      await store().put(k, Buffer.from('two'), 'text/plain');
      expect((await store().get(k))?.toString()).toBe('two');
    });

    it('answers null for a missing key, and deleting twice is fine', async () => {
      const k = key('gone');
      expect(await store().get(k)).toBeNull();
      await store().put(k, Buffer.from('x'), 'text/plain');
      await store().delete(k);
      expect(await store().get(k)).toBeNull();
      await store().delete(k);
    });

    it('keeps keys apart (a prefix is not a parent)', async () => {
      const k = key('a');
      await store().put(k, Buffer.from('a'), 'text/plain');
      await store().put(`${k}b`, Buffer.from('ab'), 'text/plain');
      expect((await store().get(k))?.toString()).toBe('a');
      expect((await store().get(`${k}b`))?.toString()).toBe('ab');
    });

    it('refuses keys that could escape: .., absolute, empty', async () => {
      for (const bad of ['../x', 'a/../../x', '/etc/passwd', '', 'a//b', 'a/./b'])
        await expect(store().put(bad, Buffer.from('x'), 'text/plain')).rejects.toThrow(/invalid blob key/);
    });
  });
}
