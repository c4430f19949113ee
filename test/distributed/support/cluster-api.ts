import { inject } from 'vitest';
import { decodeJwt, type JWK } from 'jose';
import { searchApi, type Identity, type ServiceName } from '@kg/contracts';
import { createInternalTokenSigner, type InternalTokenSigner } from '@kg/tokens';
import { connectService } from '@kg/trpc';

/** Stops or starts a service (`stop`/`start`) or infrastructure (`infra`, do=start|stop) of the running cluster. */
export async function control(action: 'stop' | 'start' | 'infra', name: string, extra: Record<string, string> = {}) {
  const params = new URLSearchParams({ name, ...extra });
  const res = await fetch(`${inject('controlUrl')}/${action}?${params}`, { method: 'POST' });
  if (!res.ok) throw new Error(`control ${action} ${name} failed: ${await res.text()}`);
}

/** The identity an access token stands for, as the gateway would forward it. */
export function identityOf(accessToken: string): Identity {
  const claims = decodeJwt(accessToken);
  return {
    tenantId: String(claims['tnt']),
    subject: String(claims.sub),
    credential: { kind: 'jwt', id: String(claims.jti) },
  };
}

/** Signs internal tokens as `service`, with that service's own key (as the cluster gave it). */
export function signerOf(service: ServiceName): InternalTokenSigner {
  const signer = createInternalTokenSigner(service, JSON.parse(inject('internalSigningKeys')[service]!) as JWK);
  return { service, sign: async (audience, identity) => (await signer).sign(audience, identity) };
}

/**
 * A direct, internally authenticated client of the search service (consumer side of the
 * events), calling as the gateway: the only service its contract lets read documents.
 */
export function searchAs(identity: Identity) {
  return connectService('gateway', 'search', searchApi, {
    kind: 'http',
    url: `${inject('serviceUrls')['search']}/trpc`,
    signer: signerOf('gateway'),
    timeoutMs: 5000,
  }).as(identity);
}

/** Polls `check` until it returns a value (not undefined/false) or the time runs out. */
export async function eventually<T>(
  check: () => Promise<T | undefined | false>,
  timeoutMs = 30_000,
  everyMs = 250,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await check();
      if (value !== undefined && value !== false) return value;
    } catch (err) {
      last = err;
    }
    await new Promise((r) => setTimeout(r, everyMs));
  }
  throw new Error(`condition not met within ${timeoutMs} ms${last ? `: ${String(last)}` : ''}`);
}
