// Bundles kg-mcp into dist/kg-mcp.js for Node.js 20+: the sources and @kg/sdk (a workspace
// package that is not published) are inlined; the published dependencies stay external.
import { build } from 'esbuild';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const pkgDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const pkg = JSON.parse(readFileSync(path.join(pkgDir, 'package.json'), 'utf8'));

await build({
  absWorkingDir: pkgDir,
  entryPoints: ['src/main.ts'],
  outfile: 'dist/kg-mcp.js',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  external: Object.keys(pkg.dependencies ?? {}),
  logLevel: 'warning',
  legalComments: 'none',
});
