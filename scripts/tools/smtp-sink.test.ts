import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import nodemailer from 'nodemailer';
import { afterEach, describe, expect, it } from 'vitest';
import { parseMessage, startSmtpSink, type SmtpSink } from './smtp-sink';

let sink: SmtpSink | null = null;
afterEach(async () => {
  await sink?.close();
  sink = null;
});

describe('smtp sink (the wiring test reads sign-in mail through it)', () => {
  it('stores what nodemailer sends over SMTP in the outbox format, token taken from the link', async () => {
    sink = await startSmtpSink(path.join(mkdtempSync(path.join(tmpdir(), 'kg-sink-')), 'outbox'));
    const token = 'mlk_01abc.' + 'x'.repeat(60) + '-_=';
    const link = `https://kg.example.com/sign-in#token=${encodeURIComponent(token)}`;
    // A long line and a non-ASCII character: nodemailer sends quoted-printable with soft breaks.
    const text = `Sign in to Knowledge Graph — the link works once, for 15 minutes:\n\n${link}\n`;
    const transport = nodemailer.createTransport(`smtp://127.0.0.1:${sink.port}`);
    await transport.sendMail({ from: 'kg@example.com', to: 'Ada@Example.com', subject: 'Your sign-in link', text });
    const files = readdirSync(sink.dir);
    expect(files).toHaveLength(1);
    const mail = JSON.parse(readFileSync(path.join(sink.dir, files[0]!), 'utf8')) as Record<string, string>;
    expect(mail).toEqual({ to: 'ada@example.com', subject: 'Your sign-in link', text: text.trimEnd(), token });
  });

  it('decodes quoted-printable bodies and unfolds headers', () => {
    const raw = 'Subject: a\r\n b\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\ncaf=C3=A9 =\r\nlong line';
    expect(parseMessage(raw)).toEqual({
      headers: { subject: 'a b', 'content-transfer-encoding': 'quoted-printable' },
      text: 'café long line',
    });
  });
});
