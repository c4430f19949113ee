import { createHash, randomBytes } from 'node:crypto';
import { chmod, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';

/** A stored login: the tokens of one person for one base URL. */
export interface StoredLogin {
  base_url: string;
  access_token: string;
  refresh_token: string;
  /** When the access token expires, epoch milliseconds (from `expires_in` at the time it was issued). */
  expires_at: number;
  email?: string | undefined;
  saved_at: string;
}

/**
 * One profile per base URL: `<configDir>/profiles/<host>_<port>-<hash>.json`, written
 * atomically (temporary file, then rename) with mode 0600 in a 0700 directory.
 */
export class ProfileStore {
  readonly dir: string;
  readonly file: string;
  readonly lockFile: string;

  constructor(configDir: string, baseUrl: string) {
    this.dir = path.join(configDir, 'profiles');
    const url = new URL(baseUrl);
    const readable = `${url.hostname}_${url.port || (url.protocol === 'https:' ? '443' : '80')}`.replace(
      /[^A-Za-z0-9_.-]/g,
      '_',
    );
    const hash = createHash('sha256').update(baseUrl).digest('hex').slice(0, 12);
    this.file = path.join(this.dir, `${readable}-${hash}.json`);
    this.lockFile = `${this.file}.lock`;
  }

  async read(): Promise<StoredLogin | null> {
    let text: string;
    try {
      text = await readFile(this.file, 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw e;
    }
    try {
      const v = JSON.parse(text) as Partial<StoredLogin>;
      if (typeof v.access_token !== 'string' || typeof v.refresh_token !== 'string') return null;
      return { ...v, expires_at: Number(v.expires_at) || 0 } as StoredLogin;
    } catch {
      return null; // a damaged file counts as signed out; the next login overwrites it
    }
  }

  async write(login: StoredLogin): Promise<void> {
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    const tmp = `${this.file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
    await writeFile(tmp, JSON.stringify(login, null, 2) + '\n', { mode: 0o600 });
    await chmod(tmp, 0o600); // the umask cannot widen it, but an existing file kept its mode
    await rename(tmp, this.file);
  }

  async remove(): Promise<void> {
    await rm(this.file, { force: true });
  }
}
