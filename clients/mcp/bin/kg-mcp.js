#!/usr/bin/env node
// kg-mcp launcher, the same approach as kg's (clients/cli/bin/kg.js). Plain JavaScript that
// any Node.js from 18 on can parse; it never writes to stdout, which carries the MCP protocol.
// - Installed package (npm install -g): runs dist/kg-mcp.js, the bundle `npm pack` builds
//   (prepack), on this Node when it is >= 20 (Node refuses to strip types under node_modules,
//   and the bundle needs nothing newer).
// - Source checkout (`npx kg-mcp` after `npm ci`): runs src/main.ts with a Node.js >= 24,
//   which strips the types itself:
//     1. this Node, when it is >= 24 (imported in-process: no second process);
//     2. KG_NODE, when set (a path to a node binary >= 24);
//     3. scripts/node24.sh (a node >= 24 from PATH, or the pinned one it brings once).
import { spawn, spawnSync } from 'node:child_process';
import module from 'node:module';
import os from 'node:os';
import { existsSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const SOURCE_MAJOR = 24;
const BUNDLE_MAJOR = 20;
const pkgDir = path.dirname(path.dirname(realpathSync(fileURLToPath(import.meta.url))));
const source = path.join(pkgDir, 'src', 'main.ts');
const bundle = path.join(pkgDir, 'dist', 'kg-mcp.js');
const inCheckout = existsSync(source) && !pkgDir.split(path.sep).includes('node_modules');
const args = process.argv.slice(2);

const major = (v) => Number(String(v).replace(/^v/, '').split('.')[0]) || 0;

// V8's code cache for what this process loads (Node >= 22.1; nothing happens before that):
// the first run compiles the sources and their dependencies, later ones read the cache and
// start in about half the time (0.8 s instead of 1.6 s for `kg --version` on a 2-core machine).
// It is kept per user (XDG_CACHE_HOME or ~/.cache, kg/compile-cache; NODE_COMPILE_CACHE
// overrides), and Node checks each entry against its file's content, so an edited file is
// compiled afresh. A cache that cannot be written is skipped silently.
const compileCache =
  process.env.NODE_COMPILE_CACHE ||
  path.join(process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'kg', 'compile-cache');
const withCompileCache = () => module.enableCompileCache?.(compileCache);
const fail = (message) => {
  process.stderr.write(`kg-mcp: ${message}\n`);
  process.exit(1);
};

function versionOf(bin) {
  const r = spawnSync(bin, ['-p', 'process.versions.node'], { encoding: 'utf8', timeout: 10000 });
  return r.status === 0 ? r.stdout.trim() : '';
}

function run(command, argv) {
  const child = spawn(command, argv, {
    stdio: 'inherit',
    env: { ...process.env, NODE_COMPILE_CACHE: compileCache },
  });
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(sig, () => child.kill(sig));
  child.on('error', (e) => fail(`cannot start ${command}: ${e.message}`));
  child.on('exit', (code, signal) => (signal ? process.kill(process.pid, signal) : process.exit(code ?? 1)));
}

const here = major(process.versions.node);
if (!inCheckout) {
  if (!existsSync(bundle)) fail(`${bundle} is missing (a package built without \`npm pack\`?)`);
  if (here < BUNDLE_MAJOR) fail(`needs Node.js ${BUNDLE_MAJOR} or newer; this is ${process.version}`);
  withCompileCache();
  await import(pathToFileURL(bundle).href);
} else if (here >= SOURCE_MAJOR) {
  withCompileCache();
  await import(pathToFileURL(source).href);
} else if (process.env.KG_NODE) {
  const v = versionOf(process.env.KG_NODE);
  if (major(v) < SOURCE_MAJOR)
    fail(
      `KG_NODE=${process.env.KG_NODE} is Node.js ${v || '(not runnable)'}; the sources need ${SOURCE_MAJOR} or newer`,
    );
  run(process.env.KG_NODE, [source, ...args]);
} else {
  const wrapper = path.resolve(pkgDir, '..', '..', 'scripts', 'node24.sh');
  if (!existsSync(wrapper)) fail(`the sources need Node.js ${SOURCE_MAJOR} (this is ${process.version})`);
  run('bash', [wrapper, 'node', source, ...args]);
}
