// Prints the package folders (relative to the project root) that the named packages need
// at run time, resolved the way Node resolves them: the package itself, its dependencies
// and the optional ones that are installed (esbuild's platform binary), recursively.
// The image keeps tsx (a devDependency, but the runtime loader) across `npm prune --omit=dev`.
//
//   node deploy/docker/dep-closure.mjs tsx > /tmp/keep.txt
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';

const root = process.cwd();
const seen = new Set();

/** Finds <name> from a package folder: its own node_modules, then each parent's. */
function locate(name, from) {
  for (let dir = from; ; dir = dirname(dir)) {
    const candidate = join(dir, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return candidate;
    if (dir === root || dir === dirname(dir)) return null;
  }
}

function visit(name, from, optional) {
  const dir = locate(name, from);
  if (!dir) {
    if (optional) return;
    throw new Error(`cannot find ${name} from ${relative(root, from) || '.'}`);
  }
  if (seen.has(dir)) return;
  seen.add(dir);
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  for (const dep of Object.keys(pkg.dependencies ?? {})) visit(dep, dir, false);
  for (const dep of Object.keys(pkg.optionalDependencies ?? {})) visit(dep, dir, true);
}

for (const name of process.argv.slice(2)) visit(name, root, false);
for (const dir of [...seen].sort()) console.log(relative(root, dir));
