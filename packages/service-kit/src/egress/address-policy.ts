import ipaddr from 'ipaddr.js';
import { env } from '@kg/config';

type Address = ipaddr.IPv4 | ipaddr.IPv6;

/**
 * Which resolved addresses an outbound fetch may reach. Only public unicast addresses pass;
 * private, loopback, link-local, unique-local, carrier-grade NAT, multicast, broadcast,
 * unspecified, reserved and the IPv6 forms that embed an IPv4 address (mapped, 6to4, Teredo,
 * NAT64) are refused, unless an allowlist entry (an address or a CIDR) names them.
 * IPv4-mapped IPv6 (::ffff:10.0.0.1) is judged as the IPv4 address it carries.
 */
export interface AddressPolicy {
  /** null when allowed, else the reason (the address class) it is refused. */
  refusal(address: string): string | null;
}

export function createAddressPolicy(allowlist: readonly string[]): AddressPolicy {
  const allowed = allowlist.map(parseEntry);
  return {
    refusal(raw) {
      if (!ipaddr.isValid(raw)) return 'not an IP address';
      const address = ipaddr.process(raw);
      if (allowed.some(([net, bits]) => net.kind() === address.kind() && address.match(net, bits))) return null;
      const range = address.range();
      return range === 'unicast' ? null : range;
    },
  };
}

const WORDS: Record<string, string> = {
  linkLocal: 'link-local',
  uniqueLocal: 'unique local',
  carrierGradeNat: 'carrier-grade NAT',
  ipv4Mapped: 'IPv4-mapped',
  rfc6052: 'NAT64',
  rfc6145: 'IPv4-translated',
  teredo: 'Teredo',
};

/**
 * The rule a refusal names in a capture's error, in words (`loopback`, `link-local`,
 * `carrier-grade NAT`): the class of address, never the address itself, which would tell
 * whoever reads the error what an internal name resolves to.
 */
export function refusalRule(range: string): string {
  return WORDS[range] ?? range;
}

function parseEntry(entry: string): [Address, number] {
  if (entry.includes('/')) return ipaddr.parseCIDR(entry);
  const address = ipaddr.process(entry);
  return [address, address.kind() === 'ipv4' ? 32 : 128];
}

/** True for an IP address or a CIDR, the entries of an allowlist (FETCH_ALLOWLIST, WEBHOOK_ALLOWLIST). */
export function isAddressOrCidr(entry: string): boolean {
  return entry.includes('/') ? ipaddr.isValidCIDR(entry) : ipaddr.isValid(entry);
}

/** The env schema of an allowlist: comma-separated IP addresses or CIDRs (empty: none). */
export const addressAllowlistEnv = () =>
  env.list().refine((entries) => entries.every(isAddressOrCidr), {
    message: 'must be comma-separated IP addresses or CIDRs',
  });
