import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it, vi } from 'vitest';
import { createLogger } from '@kg/logger';
import { createMemoryVectorIndex } from '@kg/vectors';
import { standaloneConfigSchema } from '../services/standalone/src/config';
import { startHost } from '@kg/service-standalone/host';

const exec = promisify(execFile);
const json = { 'content-type': 'application/json' };

/** `npm run reindex` as an operator runs it (a child process), on the data of the embedded server. */
async function reindex(args: string[], env: Record<string, string>) {
  return exec(process.execPath, ['--import', 'tsx', 'scripts/reindex.ts', ...args], {
    env: { PATH: process.env['PATH'] ?? '', ...env },
    timeout: 120_000,
  }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (err: { code: number; stdout: string; stderr: string }) => ({
      code: err.code,
      stdout: err.stdout,
      stderr: err.stderr,
    }),
  );
}

describe('npm run reindex as an operator runs it', () => {
  it('embedded mode (DATA_DIR, server stopped): rebuilds lost vectors from graph, refuses an unknown tenant (exit 3) and a running server (exit 1)', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'kg-reindex-'));
    const config = standaloneConfigSchema.parse({ PORT: '0', METRICS_PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir });
    const logger = createLogger('test', 'silent');
    const host = await startHost(config, logger);
    const api = `http://127.0.0.1:${host.port}/api/v1`;
    await fetch(`${api}/auth/magic-link`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ email: 'r@example.com' }),
    });
    const mail = readdirSync(path.join(dataDir, 'outbox')).find((f) => f.endsWith('.json'))!;
    const { token } = JSON.parse(readFileSync(path.join(dataDir, 'outbox', mail), 'utf8')) as { token: string };
    const pair = (await (
      await fetch(`${api}/auth/magic-link/verify`, { method: 'POST', headers: json, body: JSON.stringify({ token }) })
    ).json()) as { access_token: string };
    const bearer = { ...json, authorization: `Bearer ${pair.access_token}` };
    const titles = ['Sourdough starter', 'Kombucha scoby', 'Tomato blight', 'Bicycle chain wax', 'Cast iron seasoning'];
    for (const title of titles)
      expect(
        (await fetch(`${api}/nodes`, { method: 'POST', headers: bearer, body: JSON.stringify({ title }) })).status,
      ).toBe(201);

    const semanticTop = async (port: number, query: string) => {
      const res = await fetch(
        `http://127.0.0.1:${port}/api/v1/nodes?mode=semantic&query=${encodeURIComponent(query)}`,
        {
          headers: bearer,
        },
      );
      return ((await res.json()) as { data?: Array<{ title: string }> }).data?.[0]?.title;
    };
    // Every node indexed by the running server first (events and embedding are asynchronous).
    for (const title of titles)
      await vi.waitFor(async () => expect(await semanticTop(host.port, title)).toBe(title), {
        timeout: 60_000,
        interval: 200,
      });

    // While the server runs, the command refuses to touch its data.
    const running = await reindex(['--all'], { DATA_DIR: dataDir, PORT: String(host.port) });
    expect(running.code).toBe(1);
    expect(running.stderr.trim()).toBe(
      `reindex: something answers on port ${host.port} (PORT): stop the embedded server first; its database and vector index under ${path.resolve(dataDir)} are used by one process at a time`,
    );
    await host.close();

    // The vector index lost (its files deleted): rebuilt from graph.
    const vectorsDir = path.join(dataDir, 'vectors');
    const [log] = readdirSync(vectorsDir).filter((f) => f.endsWith('.vlog'));
    rmSync(path.join(vectorsDir, log!));
    const env = { DATA_DIR: dataDir, PORT: String(host.port) };
    const rebuilt = await reindex(['--all'], env);
    expect(rebuilt.stderr).toBe('');
    expect(rebuilt.code).toBe(0);
    const done = /reindex (tnt_[0-9a-z]+): done: 5 of 5 nodes embedded into (\S+), 0 vectors removed/.exec(
      rebuilt.stdout,
    );
    expect(done, rebuilt.stdout).not.toBeNull();
    const [, tenantId, collection] = done!;
    expect(`${collection}.vlog`).toBe(log);
    const vectors = createMemoryVectorIndex({ dir: vectorsDir });
    await vectors.ensureCollection(collection!, 384);
    expect(await vectors.count(collection!, { tenant_id: tenantId! })).toBe(5);

    const unknown = await reindex(['--tenant', 'tnt_01jd8x6q1bf5r3v2m9w7k4t0zz'], env);
    expect(unknown.code).toBe(3);
    expect(unknown.stderr.trim()).toBe(
      'reindex: tenant tnt_01jd8x6q1bf5r3v2m9w7k4t0zz is unknown to search: no node of it was ever indexed (check the tenant id)',
    );

    // The server starts again on the rebuilt index: semantic search finds a node.
    const again = await startHost(config, logger);
    try {
      for (const title of titles) expect(await semanticTop(again.port, title)).toBe(title);
    } finally {
      await again.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 240_000);

  it('the distributed mode without the search service settings: exit 1 naming each, no stack trace', async () => {
    const result = await reindex(['--tenant', 'tnt_01jd8x6q1bf5r3v2m9w7k4t0zz'], {
      DATABASE_URL: 'postgres://kg:secret-password@127.0.0.1:1/kg',
    });
    expect(result.code).toBe(1);
    const lines = result.stderr.trim().split('\n');
    expect(lines[0]).toBe('reindex: invalid configuration');
    for (const setting of ['INTERNAL_SIGNING_KEY', 'INTERNAL_PUBLIC_KEYS', 'GRAPH_URL'])
      expect(lines.filter((l) => l.startsWith(`  - ${setting}: `))).toHaveLength(1);
    expect(result.stderr).not.toMatch(/\n\s+at |secret-password/);
  }, 60_000);

  it('without embedded data: exit 1 naming DATA_DIR and DATABASE_URL', async () => {
    const empty = mkdtempSync(path.join(tmpdir(), 'kg-reindex-empty-'));
    const result = await reindex(['--tenant', 'tnt_01jd8x6q1bf5r3v2m9w7k4t0zz'], { DATA_DIR: empty, PORT: '1' });
    expect(result.code).toBe(1);
    expect(result.stderr.trim()).toBe(
      `reindex: no embedded data under ${empty} (DATA_DIR; the distributed mode needs DATABASE_URL)`,
    );
    rmSync(empty, { recursive: true, force: true });
  }, 60_000);
});
