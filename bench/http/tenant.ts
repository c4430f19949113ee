import { openDatabase } from '@kg/db';
import { signIn } from '../para/server';
import { loadGraph } from '../graph/load';
import type { SyntheticGraph } from '../graph/generate';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { startEmbedded, type Server } from './servers';

export interface Credentials {
  bearer: string;
  apiKey: string;
  tenantId: string;
}

/** Signs a fresh e-mail in through the mail outbox and creates an API key for it. */
export async function credentials(server: Server, label: string, signedIn?: string): Promise<Credentials> {
  const bearer = signedIn ?? (await signIn(server, `bench-http-${label}-${Date.now()}@example.com`));
  const api = `${server.baseUrl}/api/v1`;
  const res = await fetch(`${api}/auth/api-keys`, {
    method: 'POST',
    headers: { authorization: bearer, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'bench:http' }),
  });
  if (res.status !== 201 && res.status !== 200) throw new Error(`api key: ${res.status} ${await res.text()}`);
  const apiKey = `ApiKey ${((await res.json()) as { key: string }).key}`;
  // The tenant id is the access token's `tnt` claim.
  const payload = JSON.parse(Buffer.from(bearer.split('.')[1]!, 'base64url').toString()) as { tnt: string };
  return { bearer, apiKey, tenantId: payload.tnt };
}

/**
 * The credentials of a tenant a former run loaded into `dataDir` (its mail outbox names the
 * e-mail): signs it in again on a short-lived server, which is stopped again.
 */
export async function credentialsAgain(dataDir: string, label: string): Promise<Credentials> {
  const outbox = path.join(dataDir, 'outbox');
  const emails = readdirSync(outbox)
    .filter((f) => f.endsWith('.json'))
    .map((f) => (JSON.parse(readFileSync(path.join(outbox, f), 'utf8')) as { to: string }).to)
    .filter((to) => to.startsWith(`bench-http-${label}-`));
  if (!emails[0]) throw new Error(`no bench-http-${label} tenant in ${dataDir}`);
  // Used sign-in mails would be found first: drop them.
  for (const f of readdirSync(outbox)) rmSync(path.join(outbox, f));
  const server = await startEmbedded({ dataDir });
  try {
    const bearer = await signIn(server, emails[0]);
    const c = await credentials(server, label, bearer);
    return c;
  } finally {
    await server.stop();
  }
}

/** Loads the synthetic graph straight into the graph service's tables, as bench:graph does. */
export async function loadTenant(server: Server, tenantId: string, g: SyntheticGraph): Promise<void> {
  const database =
    'dataDir' in server.graphDb
      ? await openDatabase({ dataDir: server.graphDb.dataDir })
      : await openDatabase({ url: server.graphDb.url, poolSize: 2 });
  try {
    await loadGraph(database.db, tenantId, g, (s) => console.log(s));
  } finally {
    await database.close();
  }
}

/** Node ids of g whose degree lies in [min, max], spread over the id range. */
export function pickIds(g: SyntheticGraph, count: number, min: number, max: number): string[] {
  const degree = new Int32Array(g.ids.length);
  for (let k = 0; k < g.a.length; k++) {
    degree[g.a[k]!]!++;
    degree[g.b[k]!]!++;
  }
  const out: string[] = [];
  for (let i = 0, step = 7919; out.length < count && i < g.ids.length * 3; i++) {
    const at = (i * step) % g.ids.length;
    const id = g.ids[at]!;
    if (degree[at]! >= min && degree[at]! <= max && !out.includes(id)) out.push(id);
  }
  return out;
}
