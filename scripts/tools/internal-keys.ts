/**
 * `npm run keys:internal`: a fresh Ed25519 key pair for each service's internal tokens, as
 * Helm values for deploy/helm/knowledge-graph (the public keys go to the ConfigMap, each
 * private key to that service's own Secret).
 *
 *   npm run -s keys:internal > internal-keys.values.yaml          # keys in values (keep out of git)
 *   npm run -s keys:internal -- --secrets-dir keys/ > internal-keys.values.yaml
 *       # private keys as files keys/<service>.jwk.json (mode 600) for `kubectl create secret`;
 *       # the values then hold the public keys and the Secret names only
 */
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { stringify } from 'yaml';
import { SERVICE_NAMES } from '@kg/contracts';
import { generateInternalKeyPair } from '@kg/tokens';

const { values: args } = parseArgs({
  options: { 'secrets-dir': { type: 'string' }, 'secret-prefix': { type: 'string', default: 'kg-internal' } },
});
const dir = args['secrets-dir'];
const publicKeys: Record<string, unknown> = {};
const signingKeys: Record<string, string> = {};
const existingSecrets: Record<string, string> = {};
const commands: string[] = [];
if (dir) mkdirSync(dir, { recursive: true, mode: 0o700 });

for (const service of SERVICE_NAMES) {
  const { privateJwk, publicJwk } = await generateInternalKeyPair();
  publicKeys[service] = publicJwk;
  if (!dir) {
    signingKeys[service] = JSON.stringify(privateJwk);
    continue;
  }
  const file = path.join(dir, `${service}.jwk.json`);
  writeFileSync(file, JSON.stringify(privateJwk), { mode: 0o600 });
  chmodSync(file, 0o600);
  existingSecrets[service] = `${args['secret-prefix']}-${service}`;
  commands.push(
    `#   kubectl -n <namespace> create secret generic ${existingSecrets[service]} --from-file=INTERNAL_SIGNING_KEY=${file}`,
  );
}

const header = [
  `# Internal-token keys of the seven services, generated ${new Date().toISOString()} by npm run keys:internal.`,
  ...(dir
    ? ['# Create the Secrets from the private keys, then delete the files:', ...commands]
    : ['# Holds private keys: keep this file out of git (pass it with -f, or store it as a secret).']),
];
const values = { internalKeys: { publicKeys, signingKeys, existingSecrets } };
process.stdout.write(`${header.join('\n')}\n${stringify(values, { lineWidth: 0 })}`);
