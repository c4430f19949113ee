import { createServer, type Server, type Socket } from 'node:net';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { openDatabase, pgPoolConfig } from './client';

const url = 'postgres://kg:pw@db.internal:5433/kg';

describe('pgPoolConfig (DATABASE_URL to the pg pool)', () => {
  it('reads host, port, user and database from the URL, with the default timeouts', () => {
    expect(pgPoolConfig({ url })).toMatchObject({
      host: 'db.internal',
      port: 5433,
      user: 'kg',
      password: 'pw',
      database: 'kg',
      max: 10,
      statement_timeout: 30_000,
      connectionTimeoutMillis: 10_000,
    });
    expect(pgPoolConfig({ url, statementTimeoutMs: 500, connectTimeoutMs: 250, poolSize: 4 })).toMatchObject({
      max: 4,
      statement_timeout: 500,
      connectionTimeoutMillis: 250,
    });
  });

  it('honours sslmode: disable is plaintext, verify-full verifies, no-verify encrypts without verifying', () => {
    expect(pgPoolConfig({ url }).ssl).toBeUndefined();
    expect(pgPoolConfig({ url: `${url}?sslmode=disable` }).ssl).toBe(false);
    const verifyFull = pgPoolConfig({ url: `${url}?sslmode=verify-full` }).ssl;
    expect(verifyFull).toBeTypeOf('object');
    expect((verifyFull as { rejectUnauthorized?: boolean }).rejectUnauthorized).not.toBe(false);
    expect(pgPoolConfig({ url: `${url}?sslmode=no-verify` }).ssl).toMatchObject({ rejectUnauthorized: false });
    // libpq semantics on request: require encrypts without verifying the certificate.
    expect(pgPoolConfig({ url: `${url}?sslmode=require&uselibpqcompat=true` }).ssl).toMatchObject({
      rejectUnauthorized: false,
    });
  });

  it('reads the CA named by sslrootcert', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'kg-ca-'));
    const ca = path.join(dir, 'ca.pem');
    writeFileSync(ca, '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n');
    expect(pgPoolConfig({ url: `${url}?sslmode=verify-full&sslrootcert=${ca}` }).ssl).toMatchObject({
      ca: expect.stringContaining('BEGIN CERTIFICATE'),
    });
  });
});

describe('connect timeout', () => {
  // A server that accepts TCP connections and never answers the PostgreSQL handshake.
  let server: Server;
  const sockets: Socket[] = [];
  beforeAll(async () => {
    server = createServer((s) => sockets.push(s));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  });
  afterAll(async () => {
    for (const s of sockets) s.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('a query fails after DATABASE_CONNECT_TIMEOUT_MS instead of hanging', async () => {
    const port = (server.address() as { port: number }).port;
    const database = await openDatabase({ url: `postgres://kg:kg@127.0.0.1:${port}/kg`, connectTimeoutMs: 300 });
    const started = Date.now();
    const err = await database.db.execute(sql`select 1`).then(
      () => null,
      (e: unknown) => e as Error & { cause?: Error },
    );
    expect(err).not.toBeNull();
    expect(String(err?.cause?.message ?? err?.message)).toMatch(/timeout/i);
    expect(Date.now() - started).toBeLessThan(3000);
    expect(await database.ping()).toBe(false);
    await database.close();
  });
});
