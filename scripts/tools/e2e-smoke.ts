/**
 * The e2e smoke pass run against a deployed chart (the wiring test, the k8s test): sign-in,
 * API keys, nodes and links, graph views, PARA, uploads (S3), keyword search; zz-logs last,
 * once the deployment's logs are gathered.
 */
export const E2E_SMOKE = [
  'auth',
  'api-keys',
  'nodes',
  'links',
  'graph-seed',
  'graph-neighbors',
  'para',
  'captures-upload',
  'search-keyword',
] as const;

export const e2eSmokeFile = (name: string) => `test/e2e/${name}.test.ts`;
