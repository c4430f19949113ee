import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { remember } from './support/client';
import { freshConfig, kg, readProfile, rememberProfile } from './support/cli';
import { magicLinkToken, startOwnServer, type OwnServer } from './support/own-server';

// Every step is a kg process (a second or more on a loaded machine): more than the e2e default of 30 s.
vi.setConfig({ testTimeout: 180_000 });

/** Access tokens of this suite's own server live this long (the shared server's live 15 minutes). */
const TTL_SECONDS = 3;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('kg against a server issuing 3-second access tokens', () => {
  let server: OwnServer;
  let config: string;
  const run = (args: string[], env: Record<string, string> = {}) =>
    kg(args, { config, env: { SVC_API_URL: server.apiUrl, ...env } });

  beforeAll(async () => {
    server = await startOwnServer({ ACCESS_TOKEN_TTL_SECONDS: String(TTL_SECONDS) });
    config = freshConfig();
    const email = `cli-ttl-${Date.now().toString(36)}@e2e.test`;
    const token = await magicLinkToken(server, email);
    remember(token);
    const login = await run(['login', '--email', email, '--token', token]);
    expect(login.code, login.stderr).toBe(0);
    rememberProfile(config);
  }, 180_000);
  afterAll(() => server?.stop());

  it('a command after the token expired refreshes first; the old token is refused by the server', async () => {
    const first = readProfile(config);
    expect(first.expires_at - Date.now()).toBeLessThanOrEqual(TTL_SECONDS * 1000);
    await sleep((TTL_SECONDS + 1) * 1000);
    const stale = await fetch(`${server.apiUrl}/nodes`, { headers: { authorization: `Bearer ${first.access_token}` } });
    expect(stale.status).toBe(401);
    const res = await run(['nodes', 'create', '--title', 'After expiry', '--json']);
    expect(res.code, res.stderr).toBe(0);
    rememberProfile(config);
    expect(readProfile(config).refresh_token).not.toBe(first.refresh_token);
  });

  it('a command that outlives its token (an editor left open) refreshes in the middle', async () => {
    const node = (await run(['nodes', 'create', '--title', 'Slow edit', '--json'])).json();
    const before = readProfile(config);
    const edit = await run(['nodes', 'edit', node.id], {
      EDITOR: `sleep ${TTL_SECONDS + 1}; sed -i 's/^title: .*/title: Edited slowly/'`,
    });
    expect(edit.code, edit.stderr).toBe(0);
    rememberProfile(config);
    expect(readProfile(config).refresh_token).not.toBe(before.refresh_token);
    expect((await run(['nodes', 'get', node.id, '--json'])).json().title).toBe('Edited slowly');
  });
});
