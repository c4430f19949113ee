import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { KgError, createKgClient, parseBaseUrl } from '@kg/sdk';
import { HELP, parseCommand } from './args.ts';
import { clientForCaller } from './http/caller-session.ts';
import { startHttpServer } from './http/server.ts';
import { createKgServer } from './server.ts';
import { VERSION } from './version.ts';

const log = (line: string) => process.stderr.write(line + '\n');

/** Over stdio kg-mcp acts for the person running it: SVC_TOKEN, or the stored login. */
async function serveStdio(): Promise<void> {
  const kg = createKgClient({ userAgent: `kg-mcp/${VERSION}` });
  const kind = await kg.session.kind();
  const credential = { api_key: 'the API key in SVC_TOKEN', login: 'the stored login', none: 'none (not signed in)' };
  log(`kg-mcp ${VERSION}: stdio, API ${kg.baseUrl}, credential: ${credential[kind]}`);
  const server = createKgServer(() => kg);
  await server.connect(new StdioServerTransport());
}

async function serveHttp(port: number, host: string): Promise<void> {
  const baseUrl = parseBaseUrl(process.env['SVC_API_URL']);
  if (process.env['SVC_TOKEN']) log('kg-mcp: SVC_TOKEN is ignored over HTTP: each caller sends its own credential');
  const http = await startHttpServer({ host, port, clientForHeader: (h) => clientForCaller(baseUrl, h), log });
  log(`kg-mcp ${VERSION}: listening on ${http.url} (API ${baseUrl})`);
  const stop = () => void http.close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

async function main(argv: string[]): Promise<void> {
  const cmd = parseCommand(argv);
  switch (cmd.kind) {
    case 'help':
      process.stdout.write(HELP);
      return;
    case 'version':
      process.stdout.write(`${VERSION}\n`);
      return;
    case 'usage':
      log(`kg-mcp: ${cmd.message}\n\n${HELP}`);
      process.exitCode = 2;
      return;
    case 'stdio':
      return serveStdio();
    case 'http':
      return serveHttp(cmd.port, cmd.host);
  }
}

main(process.argv.slice(2)).catch((err: unknown) => {
  log(`kg-mcp: ${err instanceof KgError ? err.message : err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
