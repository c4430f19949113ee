import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakePeers, startTestGateway } from '../testing';

let gateway: Awaited<ReturnType<typeof startTestGateway>>;
beforeAll(async () => {
  gateway = await startTestGateway({
    peers: fakePeers({ auth: { magicLink: { verify: async () => ({}) } } }),
  });
});
afterAll(() => gateway.close());

describe('the sign-in page (GET /sign-in, where the mail points)', () => {
  it('is a small HTML page whose CSP lets only its own inline script run, by hash', async () => {
    const res = await gateway.fetch('/sign-in');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/html');
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    const html = await res.text();
    const scripts = [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => m[1]!);
    expect(scripts).toHaveLength(1);
    const csp = res.headers.get('content-security-policy')!;
    const digest = createHash('sha256').update(scripts[0]!).digest('base64');
    expect(csp).toContain(`script-src 'sha256-${digest}'`);
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect(html.match(/<script/g)).toHaveLength(1); // no external script either
  });

  it('reads the token from the fragment, clears it from the address bar, and posts it to verify', async () => {
    const html = await (await gateway.fetch('/sign-in')).text();
    expect(html).toContain('location.hash');
    expect(html).toContain("history.replaceState(null, '', location.pathname)");
    expect(html).toContain("fetch('/api/v1/auth/magic-link/verify'");
    expect(html).not.toMatch(/localStorage|sessionStorage|document\.cookie/);
    const post = await gateway.fetch('/sign-in', { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
  });
});
