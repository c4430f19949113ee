import { describe, expect, it } from 'vitest';
import { dnsReplicas, type Lookup } from './dns-replicas';

const answers = (...ips: string[]) => ips.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));

describe('dnsReplicas', () => {
  it('turns the name’s addresses into replica URLs with its port, and follows them as they change', async () => {
    let now = answers('10.0.0.2', '10.0.0.1', '10.0.0.2');
    const lookup: Lookup = async () => now;
    const changes: unknown[] = [];
    const dns = dnsReplicas({
      url: 'http://graph-replicas:4002',
      fallback: ['http://graph:4002'],
      refreshMs: 60_000,
      lookup,
      onChange: (e) => changes.push(e),
    });
    expect(dns.urls()).toEqual(['http://graph:4002']);
    await dns.refresh();
    expect(dns.urls()).toEqual(['http://10.0.0.1:4002', 'http://10.0.0.2:4002']);
    now = answers('10.0.0.1', 'fd00::3');
    await dns.refresh();
    expect(dns.urls()).toEqual(['http://10.0.0.1:4002', 'http://[fd00::3]:4002']);
    await dns.refresh();
    expect(changes).toHaveLength(2);
    dns.close();
  });

  it('keeps the last answer when the resolver fails, and falls back when the name has no address left', async () => {
    let fail: string | null = null;
    const lookup: Lookup = async () => {
      if (fail) throw Object.assign(new Error(fail), { code: fail });
      return answers('10.0.0.1');
    };
    const dns = dnsReplicas({
      url: 'http://graph-replicas:4002',
      fallback: ['http://graph:4002'],
      refreshMs: 60_000,
      lookup,
    });
    await dns.refresh();
    fail = 'EAI_AGAIN';
    await dns.refresh();
    expect(dns.urls()).toEqual(['http://10.0.0.1:4002']);
    fail = 'ENOTFOUND';
    await dns.refresh();
    expect(dns.urls()).toEqual(['http://graph:4002']);
    dns.close();
  });
});
