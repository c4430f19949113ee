import { describe, expect, it } from 'vitest';
import { authApi, capturesApi, graphApi, paraApi, searchApi, serviceInfoApi } from './index';
import { SERVICE_NAMES, isProcedure, type ContractTree } from './procedure';

const CONTRACTS = {
  auth: authApi,
  graph: graphApi,
  para: paraApi,
  captures: capturesApi,
  search: searchApi,
  'ingest-worker': serviceInfoApi,
};

function allowlist(tree: ContractTree, prefix = ''): Record<string, string[]> {
  return Object.fromEntries(
    Object.entries(tree).flatMap(([key, node]) =>
      isProcedure(node)
        ? [[`${prefix}${key}`, [...node.callers]]]
        : Object.entries(allowlist(node, `${prefix}${key}.`)),
    ),
  );
}

describe('caller allowlists (least privilege between services)', () => {
  it('every procedure names at least one caller, each a real service, none twice', () => {
    for (const [service, contract] of Object.entries(CONTRACTS))
      for (const [path, callers] of Object.entries(allowlist(contract))) {
        expect(callers.length, `${service}.${path}`).toBeGreaterThan(0);
        expect(new Set(callers).size, `${service}.${path}`).toBe(callers.length);
        for (const c of callers) expect(SERVICE_NAMES, `${service}.${path}`).toContain(c);
      }
  });

  it('auth and captures call nothing; search reads only graph keyword search; the ingest worker drives captures only through pipeline; PARA items are resolved for graph only', () => {
    const callersOf = Object.entries(CONTRACTS).flatMap(([service, contract]) =>
      Object.entries(allowlist(contract)).flatMap(([path, callers]) =>
        callers.map((c) => `${c} -> ${service}.${path}`),
      ),
    );
    for (const idle of ['auth', 'captures']) expect(callersOf.filter((c) => c.startsWith(`${idle} ->`))).toEqual([]);
    for (const c of callersOf.filter((c) => c.startsWith('search ->'))) expect(c).toMatch(/^search -> graph\.search\./);
    const workerToCaptures = callersOf.filter((c) => c.startsWith('ingest-worker -> captures.'));
    expect(workerToCaptures.length).toBeGreaterThan(0);
    for (const c of workerToCaptures) expect(c).toMatch(/^ingest-worker -> captures\.pipeline\./);
    for (const c of callersOf.filter((c) => c.endsWith(' -> captures.pipeline.claim')))
      expect(c).toBe('ingest-worker -> captures.pipeline.claim');
    expect(callersOf.filter((c) => c.endsWith('-> para.items.resolve'))).toEqual(['graph -> para.items.resolve']);
  });
});
