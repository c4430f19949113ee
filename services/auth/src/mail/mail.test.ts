import { mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createOutboxTransport } from './outbox';
import { withTimeouts } from './smtp';

describe('outbox transport', () => {
  it('writes one JSON file per message, named to sort by time, with nothing half-written left', async () => {
    const dir = path.join(mkdtempSync(path.join(tmpdir(), 'kg-outbox-')), 'outbox');
    let at = new Date('2026-11-22T12:00:00.000Z');
    const outbox = createOutboxTransport(dir, () => at);
    const sent = [];
    for (const n of [3, 1, 2]) {
      const message = { to: `u${n}@example.com`, subject: 's', text: `token t${n}`, token: `t${n}` };
      sent.push(message);
      await outbox.send(message);
      at = new Date(at.getTime() + 1);
    }
    const files = readdirSync(dir);
    expect(files).toHaveLength(3);
    expect(files.every((f) => /^\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{3}Z-[0-9a-f]{8}\.json$/.test(f))).toBe(true);
    const read = files.sort().map((f) => JSON.parse(readFileSync(path.join(dir, f), 'utf8')) as unknown);
    expect(read).toEqual([
      { ...sent[0], created_at: '2026-11-22T12:00:00.000Z' },
      { ...sent[1], created_at: '2026-11-22T12:00:00.001Z' },
      { ...sent[2], created_at: '2026-11-22T12:00:00.002Z' },
    ]);
    for (const f of files) expect(statSync(path.join(dir, f)).mode & 0o777).toBe(0o600);
  });

  it('survives many concurrent sends in the same millisecond', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'kg-outbox-'));
    const at = new Date();
    const outbox = createOutboxTransport(dir, () => at);
    await Promise.all(
      Array.from({ length: 20 }, (_, i) => outbox.send({ to: `${i}@x.test`, subject: 's', text: 't', token: 't' })),
    );
    expect(readdirSync(dir).filter((f) => f.endsWith('.json'))).toHaveLength(20);
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });
});

describe('smtp transport', () => {
  it('bounds connection, greeting and socket time unless SMTP_URL says otherwise', () => {
    const url = new URL(withTimeouts('smtps://user:pa%40ss@mail.example.com:465?socketTimeout=5000'));
    expect(url.searchParams.get('connectionTimeout')).toBe('10000');
    expect(url.searchParams.get('greetingTimeout')).toBe('10000');
    expect(url.searchParams.get('socketTimeout')).toBe('5000');
    expect(`${url.username}:${url.password}@${url.host}`).toBe('user:pa%40ss@mail.example.com:465');
  });
});
