/**
 * A loopback SMTP server for the Helm wiring test: the auth service sends its sign-in mail
 * over real SMTP (MAIL_TRANSPORT=smtp, as in production) and this sink writes each message
 * into `dir` in the outbox format the e2e suite reads (`{to, subject, text, token}`), the
 * token taken from the link in the text. Plain SMTP without TLS or AUTH (not advertised).
 */
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import path from 'node:path';

export interface SmtpSink {
  port: number;
  dir: string;
  close(): Promise<void>;
}

/** Quoted-printable body (RFC 2045): soft line breaks dropped, =XX decoded as UTF-8 bytes. */
function decodeQuotedPrintable(body: string): string {
  const bytes = body
    .replace(/=\r?\n/g, '')
    .replace(/=([0-9A-F]{2})/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  return Buffer.from(bytes, 'latin1').toString('utf8');
}

/** Headers (unfolded, lower-case names) and the decoded text body of a single-part message. */
export function parseMessage(raw: string): { headers: Record<string, string>; text: string } {
  const split = raw.search(/\r?\n\r?\n/);
  const head = split < 0 ? raw : raw.slice(0, split);
  const body = split < 0 ? '' : raw.slice(split).replace(/^\r?\n\r?\n/, '');
  const headers: Record<string, string> = {};
  for (const line of head.replace(/\r?\n[ \t]+/g, ' ').split(/\r?\n/)) {
    const i = line.indexOf(':');
    if (i > 0) headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
  }
  const encoding = (headers['content-transfer-encoding'] ?? '').toLowerCase();
  const text =
    encoding === 'quoted-printable'
      ? decodeQuotedPrintable(body)
      : encoding === 'base64'
        ? Buffer.from(body, 'base64').toString('utf8')
        : body;
  return { headers, text: text.replace(/\r\n/g, '\n').trimEnd() };
}

/** `host`: the address to listen on (loopback unless a cluster's pods must reach it). */
export function startSmtpSink(dir: string, host = '127.0.0.1'): Promise<SmtpSink> {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  let count = 0;
  const sockets = new Set<Socket>();
  const store = (rcpt: string[], raw: string) => {
    const { headers, text } = parseMessage(raw);
    const token = decodeURIComponent(/[#?&]token=([^\s&#]+)/.exec(text)?.[1] ?? '');
    const name = `${new Date().toISOString().replace(/[:.]/g, '-')}-${String(count++).padStart(6, '0')}.json`;
    const body = { to: (rcpt[0] ?? '').toLowerCase(), subject: headers['subject'] ?? '', text, token };
    const tmp = path.join(dir, `.${name}.tmp`);
    writeFileSync(tmp, JSON.stringify(body, null, 2), { mode: 0o600 });
    renameSync(tmp, path.join(dir, name));
  };
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    let buffer = '';
    let data: string[] | null = null;
    let rcpt: string[] = [];
    const reply = (line: string) => socket.write(`${line}\r\n`);
    reply('220 smtp-sink ESMTP');
    socket.on('data', (chunk: Buffer) => {
      buffer += chunk.toString('latin1');
      for (let nl = buffer.indexOf('\r\n'); nl >= 0; nl = buffer.indexOf('\r\n')) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 2);
        if (data) {
          if (line === '.') {
            store(rcpt, Buffer.from(data.join('\r\n'), 'latin1').toString('latin1'));
            data = null;
            rcpt = [];
            reply('250 2.0.0 queued');
          } else data.push(line.startsWith('..') ? line.slice(1) : line);
          continue;
        }
        const verb = line.slice(0, 4).toUpperCase();
        if (verb === 'EHLO') reply('250-smtp-sink\r\n250 8BITMIME');
        else if (verb === 'HELO') reply('250 smtp-sink');
        else if (verb === 'MAIL') reply('250 2.1.0 ok');
        else if (verb === 'RCPT') {
          rcpt.push(/<([^>]*)>/.exec(line)?.[1] ?? '');
          reply('250 2.1.5 ok');
        } else if (verb === 'DATA') {
          data = [];
          reply('354 end with <CRLF>.<CRLF>');
        } else if (verb === 'RSET') {
          rcpt = [];
          reply('250 2.0.0 ok');
        } else if (verb === 'NOOP') reply('250 2.0.0 ok');
        else if (verb === 'QUIT') {
          reply('221 2.0.0 bye');
          socket.end();
        } else reply('502 5.5.2 not implemented');
      }
    });
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => {
      const { port } = server.address() as { port: number };
      resolve({
        port,
        dir,
        close: () =>
          new Promise<void>((done) => {
            for (const s of sockets) s.destroy();
            server.close(() => done());
          }),
      });
    });
  });
}
