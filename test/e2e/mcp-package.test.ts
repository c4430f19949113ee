import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { api, newTenant } from './support/client';
import { callOk } from './support/mcp';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const MCP = path.join(ROOT, 'clients/mcp');

const versionOf = (bin: string) =>
  spawnSync(bin, ['-p', 'process.versions.node'], { encoding: 'utf8' }).stdout?.trim() ?? '';

/** The oldest Node.js >= 20 on this machine (a system Node 20 when there is one), else this one. */
function oldestNode(): { bin: string; version: string } {
  const dirs = [...(process.env['PATH'] ?? '').split(path.delimiter), '/usr/bin', '/usr/local/bin'];
  const found = dirs
    .map((d) => path.join(d, 'node'))
    .filter((bin, i, all) => all.indexOf(bin) === i && existsSync(bin))
    .map((bin) => ({ bin, version: versionOf(bin) }))
    .filter((n) => Number(n.version.split('.')[0]) >= 20)
    .sort((a, b) => Number(a.version.split('.')[0]) - Number(b.version.split('.')[0]));
  return found[0] ?? { bin: process.execPath, version: process.versions.node };
}

/** Speaks MCP over stdio with `node args…` and creates then reads a node through it. */
async function roundTrip(node: string, args: string[], key: string): Promise<void> {
  const transport = new StdioClientTransport({
    command: node,
    args,
    cwd: tmpdir(),
    env: {
      SVC_API_URL: `${inject('baseUrl')}/api/v1`,
      SVC_TOKEN: key,
      KG_CONFIG_DIR: mkdtempSync(path.join(tmpdir(), 'kg-mcp-pkg-')),
    },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'e2e-package', version: '1.0.0' });
  await client.connect(transport);
  try {
    expect((await client.listTools()).tools.length).toBe(11);
    const created = await callOk(client, 'create_node', { title: `Made with Node ${versionOf(node)}` });
    expect((await callOk(client, 'get_node', { id: created.id })).title).toBe(created.title);
  } finally {
    await client.close();
  }
}

describe('kg-mcp as it is started and installed', () => {
  const node = oldestNode();
  let key: string;

  beforeAll(async () => {
    const s = await newTenant('mcp-package');
    const res = await api<{ key: string }>('POST', '/auth/api-keys', { auth: s.bearer, body: { name: 'pkg' } });
    key = res.body.key;
  });

  it(`the launcher serves MCP from the sources on Node ${node.version} (older than 24: through scripts/node24.sh)`, async () => {
    await roundTrip(node.bin, [path.join(MCP, 'bin/kg-mcp.js')], key);
  });

  it(`the bundle npm pack ships (SDK inlined) serves MCP on Node ${node.version}`, async () => {
    const build = spawnSync(process.execPath, [path.join(MCP, 'scripts/build.mjs')], { encoding: 'utf8' });
    expect(build.status, build.stderr).toBe(0);
    await roundTrip(node.bin, [path.join(MCP, 'dist/kg-mcp.js')], key);
  });
});
