import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { unauthorized } from '@kg/contracts';
import { fakePeers, startTestGateway } from '../testing';
import { uploadReadAllowanceMs } from './upload-deadline';

/** API keys `<tenant>.<credential>`. */
const verify = async ({ key }: { key: string }) => {
  const [tenant, credential] = key.split('.');
  if (!tenant || !credential) throw unauthorized();
  return { tenantId: `tnt_${tenant}`, subject: 'usr_x', credential: { kind: 'api_key' as const, id: credential } };
};

const stored: number[] = [];
const peers = fakePeers({
  auth: { apiKeys: { verify } },
  captures: {
    usage: async () => ({ stored_bytes: 0 }),
    upload: async (input: { bytes_base64: string }) => {
      stored.push(Buffer.from(input.bytes_base64, 'base64').length);
      return { id: 'cap_1' };
    },
  },
});

let gateway: Awaited<ReturnType<typeof startTestGateway>> | null = null;
afterEach(async () => {
  await gateway?.close();
  gateway = null;
  stored.length = 0;
});

const BOUNDARY = 'kg-deadline-test';
const HEAD = Buffer.from(
  `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\nContent-Type: text/plain\r\n\r\n`,
);
const TAIL = Buffer.from(`\r\n--${BOUNDARY}--\r\n`);

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** The server closed the connection (the client saw its end). */
  closed: boolean;
}

/**
 * An upload of `size` bytes over a raw socket: the request head, the multipart head, then the
 * file as `send` decides (`stall`: the first `bytes` then nothing; `trickle`: `bytes` every
 * `everyMs`, a slowloris). Resolves with whatever the server answers once it closes the
 * connection, or once a complete answer arrived on a connection left open.
 */
function socketUpload(
  base: string,
  key: string,
  size: number,
  send: { kind: 'all' } | { kind: 'stall'; bytes: number } | { kind: 'trickle'; bytes: number; everyMs: number },
): Promise<RawAnswer> {
  const url = new URL(base);
  const socket = connect(Number(url.port), url.hostname);
  socket.write(
    `POST /api/v1/captures/upload HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: ApiKey ${key}\r\n` +
      `Content-Type: multipart/form-data; boundary=${BOUNDARY}\r\n` +
      `Content-Length: ${HEAD.length + size + TAIL.length}\r\n\r\n`,
  );
  socket.write(HEAD);
  let timer: NodeJS.Timeout | undefined;
  if (send.kind === 'all') socket.write(Buffer.concat([Buffer.alloc(size, 'a'), TAIL]));
  else socket.write(Buffer.alloc(send.bytes, 'a'));
  if (send.kind === 'trickle') {
    let sent = send.bytes;
    timer = setInterval(() => {
      if (socket.destroyed || !socket.writable) return;
      const n = Math.min(send.bytes, size - sent);
      sent += n;
      socket.write(Buffer.alloc(n, 'a'));
      if (sent >= size) {
        clearInterval(timer);
        socket.write(TAIL);
      }
    }, send.everyMs);
  }
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const finish = (closed: boolean) => {
      clearInterval(timer);
      const text = Buffer.concat(chunks).toString();
      const [head = '', body = ''] = text.split('\r\n\r\n');
      const [statusLine = '', ...lines] = head.split('\r\n');
      const headers = Object.fromEntries(
        lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]),
      );
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body, closed });
      socket.destroy();
    };
    socket.on('data', (d: Buffer) => {
      chunks.push(d);
      // A complete answer on a connection the server keeps open: no close to wait for.
      const text = Buffer.concat(chunks).toString();
      const length = /\r\ncontent-length: (\d+)/i.exec(text);
      const at = text.indexOf('\r\n\r\n');
      if (
        length &&
        at >= 0 &&
        Buffer.byteLength(text) - at - 4 >= Number(length[1]) &&
        !/connection: close/i.test(text)
      )
        finish(false);
    });
    // Bytes written after the server closed are refused (ECONNRESET): the answer read before stands.
    socket.on('error', () => undefined);
    socket.on('close', () => finish(true));
  });
}

function expectTimedOut(answer: RawAnswer) {
  expect(answer.status).toBe(408);
  expect(answer.headers['content-type']).toContain('application/problem+json');
  expect(answer.headers['connection']).toBe('close');
  expect(answer.closed).toBe(true);
  expect(JSON.parse(answer.body)).toMatchObject({
    type: 'https://kg.dev/problems/request-timeout',
    title: 'Request timeout',
    status: 408,
    detail: expect.stringContaining('did not arrive in time'),
  });
}

describe('upload read deadline', () => {
  it('a client that sends the head of its upload and then nothing gets 408 and its slot back at once', async () => {
    gateway = await startTestGateway({
      peers,
      env: { UPLOAD_READ_TIMEOUT_SECONDS: '1', UPLOAD_CONCURRENCY_PER_TENANT: '1' },
    });
    expectTimedOut(await socketUpload(gateway.base, 's.k1', 10_000, { kind: 'stall', bytes: 100 }));
    // The tenant's one slot is free again: its next upload is accepted, and only it is stored.
    const next = await socketUpload(gateway.base, 's.k2', 10, { kind: 'all' });
    expect(next.status).toBe(201);
    expect(stored).toEqual([10]);
  });

  it('a slowloris trickling a few bytes at a time gets 408 and frees the slot of its tenant and of the process', async () => {
    gateway = await startTestGateway({
      peers,
      env: {
        UPLOAD_READ_TIMEOUT_SECONDS: '1',
        UPLOAD_READ_MIN_BYTES_PER_SECOND: '1024',
        UPLOAD_CONCURRENCY_PER_TENANT: '1',
        UPLOAD_CONCURRENCY_PER_PROCESS: '1',
      },
    });
    expectTimedOut(await socketUpload(gateway.base, 't.k1', 100_000, { kind: 'trickle', bytes: 3, everyMs: 50 }));
    expect((await socketUpload(gateway.base, 't.k1', 10, { kind: 'all' })).status).toBe(201);
    expect((await socketUpload(gateway.base, 'u.k1', 10, { kind: 'all' })).status).toBe(201);
    expect(stored).toEqual([10, 10]);
  });

  it('an upload that keeps up the minimum rate after the grace period is accepted', async () => {
    gateway = await startTestGateway({
      peers,
      env: { UPLOAD_READ_TIMEOUT_SECONDS: '1', UPLOAD_READ_MIN_BYTES_PER_SECOND: '100' },
    });
    // 20 × 1,000 bytes, one every 100 ms: about 10,000 bytes a second, a hundred times the minimum.
    const answer = await socketUpload(gateway.base, 'v.k1', 20_000, { kind: 'trickle', bytes: 1000, everyMs: 100 });
    expect(answer.status).toBe(201);
    expect(stored).toEqual([20_000]);
  });
});

describe('uploadReadAllowanceMs', () => {
  it('is the grace period plus one second per minimum rate of bytes received', () => {
    const bounds = { graceSeconds: 60, minBytesPerSecond: 64 * 1024 };
    expect(uploadReadAllowanceMs(0, bounds)).toBe(60_000);
    expect(uploadReadAllowanceMs(64 * 1024, bounds)).toBe(61_000);
    // 25 MiB at 64 KiB/s: 400 s after the first 60.
    expect(uploadReadAllowanceMs(25 * 1024 * 1024, bounds)).toBe(460_000);
  });
});
