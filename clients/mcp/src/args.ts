import { parseArgs } from 'node:util';

export const HELP = `kg-mcp: the MCP server of the knowledge-graph service

Usage:
  kg-mcp                     serve MCP over stdio (what desktop assistants start)
  kg-mcp --http <port>       serve MCP over streamable HTTP at http://<host>:<port>/mcp
  kg-mcp --help | --version

Options:
  --http <port>      Streamable HTTP instead of stdio (0 picks a free port, printed on stderr)
  --host <address>   Address to listen on with --http (default 127.0.0.1; bound to loopback,
                     only localhost Host names are accepted)

Credentials:
  stdio  SVC_TOKEN (an API key) when set; otherwise the login stored by \`kg login\`
         (refreshed automatically). Without either, every tool answers "not signed in".
  HTTP   every request carries the caller's own credential, passed through to the API:
         Authorization: Bearer <access token or API key>, or ApiKey <key>. None: 401.
         SVC_TOKEN is never used over HTTP.

Environment:
  SVC_API_URL    The API's base address (default http://localhost:8080/api/v1)
  SVC_TOKEN      An API key (stdio only)
  KG_CONFIG_DIR  Where \`kg login\` stores its profiles (default: the user's config directory)

Examples:
  SVC_TOKEN=key_… kg-mcp
  SVC_API_URL=https://kg.example.com/api/v1 kg-mcp --http 3333 --host 0.0.0.0
`;

export type Command =
  | { kind: 'help' }
  | { kind: 'version' }
  | { kind: 'stdio' }
  | { kind: 'http'; port: number; host: string }
  | { kind: 'usage'; message: string };

/** Reads kg-mcp's command line; a mistake is a `usage` command carrying the message. */
export function parseCommand(argv: string[]): Command {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        http: { type: 'string' },
        host: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
        version: { type: 'boolean', short: 'v' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (err) {
    return { kind: 'usage', message: (err as Error).message };
  }
  if (values.help) return { kind: 'help' };
  if (values.version) return { kind: 'version' };
  if (values.http === undefined) {
    if (values.host !== undefined) return { kind: 'usage', message: '--host only goes with --http <port>' };
    return { kind: 'stdio' };
  }
  const port = Number(values.http);
  if (!/^\d+$/.test(values.http) || port > 65535)
    return { kind: 'usage', message: `--http takes a port number (0–65535), got "${values.http}"` };
  const host = values.host ?? '127.0.0.1';
  if (!host.trim()) return { kind: 'usage', message: '--host must not be empty' };
  return { kind: 'http', port, host };
}
