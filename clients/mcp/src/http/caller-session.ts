import { tmpdir } from 'node:os';
import { Session, createKgClient, type KgClient, type RequestFactory } from '@kg/sdk';

/**
 * A session that sends exactly the caller's Authorization header: no stored login, no
 * refresh (the caller owns its tokens; kg-mcp over HTTP never holds a credential of its own).
 */
class CallerSession extends Session {
  private readonly header: string;

  constructor(baseUrl: string, header: string) {
    // The profile store is never touched: authorization() and fetch() below replace its use.
    super({ env: { baseUrl, apiKey: undefined, configDir: tmpdir() }, userAgent: 'kg-mcp' });
    this.header = header;
  }

  override async authorization(): Promise<string> {
    return this.header;
  }

  override async fetch(make: Request | RequestFactory): Promise<Response> {
    const req = typeof make === 'function' ? make() : make.clone();
    req.headers.set('authorization', this.header);
    return this.send(req);
  }
}

/** An API client acting with the caller's own credential (`Bearer <jwt>` or `ApiKey <key>`). */
export function clientForCaller(baseUrl: string, authorization: string): KgClient {
  return createKgClient({ session: new CallerSession(baseUrl, authorization) });
}
