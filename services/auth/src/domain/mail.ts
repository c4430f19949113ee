import { mkdir, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import nodemailer from 'nodemailer';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  /** The magic-link token, kept machine-readable for the outbox transport. */
  token: string;
}

/** Where sign-in mail goes: real SMTP, or JSON files in an outbox directory. */
export interface MailTransport {
  readonly kind: 'outbox' | 'smtp';
  send(message: MailMessage): Promise<void>;
}

/** One JSON file per message, named to sort by time, written atomically (temp file + rename). */
export function createOutboxTransport(dir: string): MailTransport {
  return {
    kind: 'outbox',
    async send(message) {
      await mkdir(dir, { recursive: true });
      const stamp = new Date().toISOString().replace(/[:.]/g, '-');
      const name = `${stamp}-${randomBytes(4).toString('hex')}.json`;
      const tmp = path.join(dir, `.${name}.tmp`);
      await writeFile(tmp, JSON.stringify({ ...message, created_at: new Date().toISOString() }, null, 2), {
        mode: 0o600,
      });
      await rename(tmp, path.join(dir, name));
    },
  };
}

export function createSmtpTransport(url: string, from: string): MailTransport {
  const transporter = nodemailer.createTransport(url);
  return {
    kind: 'smtp',
    async send({ to, subject, text }) {
      await transporter.sendMail({ from, to, subject, text });
    },
  };
}
