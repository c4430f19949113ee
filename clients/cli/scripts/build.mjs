// Bundles the CLI for a package installed on its own (`npm pack`, then `npm install -g kg-cli-*.tgz`):
// src/main.ts and the workspace SDK (@kg/sdk, with openapi-fetch) become dist/kg.mjs; the
// declared dependencies stay external and are installed by npm. Node refuses to strip types
// under node_modules, so an installed package must ship JavaScript; in the repository the
// launcher runs src/main.ts directly and needs no build.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));

await build({
  entryPoints: [path.join(root, 'src/main.ts')],
  outfile: path.join(root, 'dist/kg.mjs'),
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node24',
  external: Object.keys(pkg.dependencies ?? {}),
  legalComments: 'none',
  logLevel: 'warning',
});
