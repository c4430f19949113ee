// Turns the Kubernetes JSON schemas shipped by the PyPI package kubernetes-validate
// ("<version>-local-strict/<kind>-<group>-<version>.json", whose $refs point at a shared
// "/api/_definitions.json") into the standalone layout kubeconform reads from a folder
// ("<version>-standalone-strict/<kind>-<group>-<version>.json", each file self-contained).
//
//   node scripts/tools/k8s-schemas.mjs <local-strict dir> <standalone-strict dir>
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const [from, to] = process.argv.slice(2);
if (!from || !to) {
  console.error('usage: k8s-schemas.mjs <local-strict dir> <standalone-strict dir>');
  process.exit(2);
}

const SHARED = '/api/_definitions.json#/$defs/';
const LOCAL = '#/$defs/';
const defs = JSON.parse(readFileSync(join(from, '_definitions.json'), 'utf8')).$defs;

/** Rewrites shared refs to local ones and collects the names of the definitions used. */
function localise(node, used) {
  if (Array.isArray(node)) return node.map((n) => localise(n, used));
  if (node === null || typeof node !== 'object') return node;
  const out = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === '$ref' && typeof value === 'string') {
      const name = value.startsWith(SHARED)
        ? value.slice(SHARED.length)
        : value.startsWith(LOCAL)
          ? value.slice(LOCAL.length)
          : null;
      if (name === null) throw new Error(`unexpected $ref ${value}`);
      used.add(name);
      out[key] = LOCAL + name;
    } else out[key] = localise(value, used);
  }
  return out;
}

mkdirSync(to, { recursive: true });
let written = 0;
for (const file of readdirSync(from)) {
  if (!file.endsWith('.json') || file === '_definitions.json') continue;
  const schema = JSON.parse(readFileSync(join(from, file), 'utf8'));
  // Only top-level resources (those with a fixed kind) are looked up by kubeconform.
  if (!schema.properties?.kind?.enum) continue;
  const pending = new Set();
  const standalone = localise(schema, pending);
  const closure = {};
  while (pending.size > 0) {
    const [name] = pending;
    pending.delete(name);
    if (name in closure) continue;
    if (!(name in defs)) throw new Error(`${file}: unknown definition ${name}`);
    closure[name] = null;
    const found = new Set();
    closure[name] = localise(defs[name], found);
    for (const n of found) if (!(n in closure)) pending.add(n);
  }
  standalone.$defs = closure;
  writeFileSync(join(to, file), JSON.stringify(standalone));
  written++;
}
console.log(`${written} standalone schemas in ${to}`);
