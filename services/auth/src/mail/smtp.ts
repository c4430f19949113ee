import nodemailer from 'nodemailer';
import type { MailMessage, MailTransport } from './transport';

/** Timeouts (ms) applied unless SMTP_URL sets them, so a hung server cannot hold a request for minutes. */
const DEFAULT_TIMEOUTS = { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 30_000 };

/** SMTP_URL plus the default timeouts it does not override (nodemailer reads options from the query). */
export function withTimeouts(url: string): string {
  const parsed = new URL(url);
  for (const [key, value] of Object.entries(DEFAULT_TIMEOUTS))
    if (!parsed.searchParams.has(key)) parsed.searchParams.set(key, String(value));
  return parsed.toString();
}

/** Real SMTP through nodemailer: `smtp://` or `smtps://user:pass@host:port`, sent from `from`. */
export function createSmtpTransport(url: string, from: string): MailTransport {
  const transporter = nodemailer.createTransport(withTimeouts(url));
  return {
    kind: 'smtp',
    async send({ to, subject, text }: MailMessage) {
      await transporter.sendMail({ from, to, subject, text });
    },
  };
}
