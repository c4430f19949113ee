import { lookup } from 'node:dns/promises';
import { isIP, type LookupFunction } from 'node:net';
import { refusalRule, type AddressPolicy } from './address-policy';

export interface Resolved {
  address: string;
  family: number;
}

/**
 * Why an outbound request was not made: the host has no address (`not_found`), or one of its
 * addresses is not public (`refused`, naming the rule: `loopback`, `private`…, never the
 * address, which would tell whoever reads the error what an internal name resolves to).
 */
export class EgressRefusal extends Error {
  override name = 'EgressRefusal';
  constructor(
    readonly kind: 'not_found' | 'refused',
    readonly host: string,
    /** The class of address refused (`refused` only). */
    readonly rule: string | null = null,
  ) {
    super(kind === 'not_found' ? `host ${host} not found` : `the address of ${host} is not public (${rule})`);
  }
}

/**
 * Resolves a host (a name, an IP literal, or a bracketed IPv6 literal) and checks every
 * address it has against the policy: one refused address refuses the host (a name that
 * resolves to a public and a private address must not reach the private one on a retry).
 * Other DNS failures (timeouts, SERVFAIL) are thrown as they are: they may pass.
 */
export async function resolvePublic(host: string, policy: AddressPolicy): Promise<Resolved> {
  const bare = host.startsWith('[') ? host.slice(1, -1) : host;
  const found = isIP(bare)
    ? [{ address: bare, family: isIP(bare) }]
    : await lookup(bare, { all: true }).catch((err: NodeJS.ErrnoException) => {
        throw err.code === 'ENOTFOUND' ? new EgressRefusal('not_found', bare) : err;
      });
  for (const { address } of found) {
    const reason = policy.refusal(address);
    if (reason) throw new EgressRefusal('refused', bare, refusalRule(reason));
  }
  return found[0]!;
}

/**
 * A socket `lookup` that answers with the address already checked: the connection goes where
 * the check looked, so a DNS answer that changes between the check and the connect
 * (rebinding) cannot reach a refused address.
 */
export function pinnedLookup(pinned: Resolved): LookupFunction {
  return (_host, opts, cb) => {
    if ((opts as { all?: boolean }).all) (cb as never as (e: null, a: Resolved[]) => void)(null, [pinned]);
    else cb(null, pinned.address, pinned.family);
  };
}
