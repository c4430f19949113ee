import { randomBytes } from 'node:crypto';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { MailMessage, MailTransport } from './transport';

/** `2026-11-22T12-00-00-000Z-<8 hex>.json`: names sort by creation time, and never collide. */
export function outboxFileName(at: Date): string {
  return `${at.toISOString().replace(/[:.]/g, '-')}-${randomBytes(4).toString('hex')}.json`;
}

/**
 * The embedded mail transport: one JSON file per message in `dir`
 * (`{to, subject, text, token, created_at}`), written atomically: a hidden temp file
 * (mode 0600, it holds a sign-in token) renamed into place, so readers never see half a file.
 */
export function createOutboxTransport(dir: string, clock: () => Date = () => new Date()): MailTransport {
  let ready: Promise<unknown> | null = null;
  return {
    kind: 'outbox',
    async send(message: MailMessage) {
      ready ??= mkdir(dir, { recursive: true, mode: 0o700 });
      await ready;
      const at = clock();
      const name = outboxFileName(at);
      const tmp = path.join(dir, `.${name}.tmp`);
      const body = { to: message.to, subject: message.subject, text: message.text, token: message.token };
      await writeFile(tmp, `${JSON.stringify({ ...body, created_at: at.toISOString() }, null, 2)}\n`, {
        mode: 0o600,
        flag: 'wx',
      });
      await rename(tmp, path.join(dir, name));
    },
  };
}
