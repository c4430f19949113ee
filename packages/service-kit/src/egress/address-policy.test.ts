import { describe, expect, it } from 'vitest';
import { createAddressPolicy, refusalRule } from './address-policy';

describe('address policy', () => {
  const strict = createAddressPolicy([]);

  it.each([
    ['127.0.0.1', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'linkLocal'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['0.0.0.0', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fe80::1', 'linkLocal'],
    ['fc00::1', 'uniqueLocal'],
    ['fd12:3456::1', 'uniqueLocal'],
    ['ff02::1', 'multicast'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:10.0.0.1', 'private'],
    ['::ffff:169.254.169.254', 'linkLocal'],
    ['2002:0a00:0001::1', '6to4'],
  ])('refuses %s (%s)', (address, reason) => {
    expect(strict.refusal(address)).toBe(reason);
  });

  it.each(['93.184.215.14', '8.8.8.8', '2606:4700:4700::1111', '::ffff:8.8.8.8'])('allows public %s', (address) => {
    expect(strict.refusal(address)).toBeNull();
  });

  it('names each refused class in words, never an address', () => {
    expect(
      ['loopback', 'private', 'linkLocal', 'uniqueLocal', 'carrierGradeNat', '6to4', 'rfc6052'].map(refusalRule),
    ).toEqual(['loopback', 'private', 'link-local', 'unique local', 'carrier-grade NAT', '6to4', 'NAT64']);
  });

  it('refuses what is not an address', () => {
    expect(strict.refusal('example.com')).toBe('not an IP address');
  });

  it('lets an allowlisted address or CIDR through, and only that', () => {
    const policy = createAddressPolicy(['127.0.0.1', '10.20.0.0/16', 'fd00::/8']);
    expect(policy.refusal('127.0.0.1')).toBeNull();
    expect(policy.refusal('::ffff:127.0.0.1')).toBeNull();
    expect(policy.refusal('127.0.0.2')).toBe('loopback');
    expect(policy.refusal('10.20.5.5')).toBeNull();
    expect(policy.refusal('10.21.0.1')).toBe('private');
    expect(policy.refusal('fd00::5')).toBeNull();
    expect(policy.refusal('::1')).toBe('loopback');
  });
});
