import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
/** `npx kg-mcp` after `npm ci`; the package's own bin when the link is missing (a work tree installed earlier). */
export const KG_MCP = existsSync(path.join(ROOT, 'node_modules/.bin/kg-mcp'))
  ? path.join(ROOT, 'node_modules/.bin/kg-mcp')
  : path.join(ROOT, 'clients/mcp/bin/kg-mcp.js');

export interface ToolAnswer {
  isError: boolean;
  /** Every text block, joined by a blank line. */
  text: string;
  structured: any;
}

export async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<ToolAnswer> {
  const res = await client.callTool({ name, arguments: args });
  const content = (res.content ?? []) as Array<{ type: string; text?: string }>;
  return {
    isError: res.isError === true,
    text: content.map((c) => c.text ?? '').join('\n\n'),
    structured: res.structuredContent,
  };
}

/** Calls a tool that must succeed and returns its structured content. */
export async function callOk(client: Client, name: string, args: Record<string, unknown> = {}): Promise<any> {
  const res = await call(client, name, args);
  if (res.isError) throw new Error(`${name} failed: ${res.text}`);
  return res.structured;
}

/** An MCP client on the real `kg-mcp` binary over stdio; `stderr` collects what it printed there. */
export async function stdioClient(env: Record<string, string>): Promise<{ client: Client; stderr: () => string }> {
  const transport = new StdioClientTransport({ command: KG_MCP, args: [], env, stderr: 'pipe', cwd: ROOT });
  let err = '';
  transport.stderr?.on('data', (d: Buffer) => (err += d.toString()));
  const client = new Client({ name: 'e2e', version: '1.0.0' });
  await client.connect(transport);
  return { client, stderr: () => err };
}

/** Starts `kg-mcp --http 0` and resolves with its /mcp URL once it listens. */
export async function startHttpMcp(env: Record<string, string>): Promise<{ url: string; stop(): Promise<void> }> {
  const child: ChildProcess = spawn(KG_MCP, ['--http', '0'], {
    cwd: ROOT,
    env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`kg-mcp --http did not start:\n${err}`)), 60_000);
    child.stderr!.on('data', (d: Buffer) => {
      err += d.toString();
      const m = /listening on (http:\/\/\S+\/mcp)/.exec(err);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    child.once('exit', (code) => reject(new Error(`kg-mcp --http exited with ${code}:\n${err}`)));
  });
  return {
    url,
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/**
 * An MCP client over streamable HTTP whose Authorization header is read at every request
 * (so a test can swap in a refreshed token mid-session).
 */
export async function httpClient(
  url: string,
  authorization: () => string | undefined,
): Promise<Client & { sessionId: () => string | undefined }> {
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    fetch: (input, init) => {
      const headers = new Headers(init?.headers);
      const auth = authorization();
      if (auth) headers.set('authorization', auth);
      return fetch(input, { ...init, headers });
    },
  });
  const client = new Client({ name: 'e2e-http', version: '1.0.0' });
  await client.connect(transport);
  return Object.assign(client, { sessionId: () => transport.sessionId });
}
