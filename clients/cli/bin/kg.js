#!/usr/bin/env node
// kg launcher. Plain JavaScript that any Node.js from 18 on can run: it finds a Node.js >= 24
// and runs the CLI with it, so `npx kg` works after `npm ci` even when `node` is Node 20.
//   1. this Node, when it is >= 24 (the CLI is imported in-process: no second process);
//   2. KG_NODE, when set (a path to a node binary >= 24);
//   3. inside the repository: scripts/node24.sh (uses a node >= 24 from PATH or brings the pinned one);
//   4. the first `node` >= 24 on PATH.
// Otherwise it says what to install and exits with 1.
// What runs: src/main.ts (Node 24 strips the types) in a source checkout; dist/kg.mjs, the
// bundle `npm pack` builds (prepack), in an installed package (Node refuses to strip types under node_modules).
import { spawn, spawnSync } from 'node:child_process';
import module from 'node:module';
import os from 'node:os';
import { existsSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const MIN_MAJOR = 24;
const pkgDir = path.dirname(path.dirname(realpathSync(fileURLToPath(import.meta.url))));
const source = path.join(pkgDir, 'src', 'main.ts');
const bundle = path.join(pkgDir, 'dist', 'kg.mjs');
const inCheckout = existsSync(source) && !pkgDir.split(path.sep).includes('node_modules');
const entry = inCheckout ? source : bundle;
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
  child.on('error', (e) => {
    process.stderr.write(`kg: cannot start ${command}: ${e.message}\n`);
    process.exit(1);
  });
  child.on('exit', (code, signal) => (signal ? process.kill(process.pid, signal) : process.exit(code ?? 1)));
}

if (!existsSync(entry)) {
  process.stderr.write(`kg: ${entry} is missing (a package built without \`npm pack\`?)\n`);
  process.exit(1);
}

if (major(process.versions.node) >= MIN_MAJOR) {
  withCompileCache();
  await import(pathToFileURL(entry).href);
} else if (process.env.KG_NODE) {
  const v = versionOf(process.env.KG_NODE);
  if (major(v) < MIN_MAJOR) {
    process.stderr.write(
      `kg: KG_NODE=${process.env.KG_NODE} is Node.js ${v || '(not runnable)'}; kg needs ${MIN_MAJOR} or newer\n`,
    );
    process.exit(1);
  }
  run(process.env.KG_NODE, [entry, ...args]);
} else {
  const wrapper = path.resolve(pkgDir, '..', '..', 'scripts', 'node24.sh');
  if (inCheckout && existsSync(wrapper)) {
    run('bash', [wrapper, 'node', entry, ...args]);
  } else {
    const found = (process.env.PATH || '')
      .split(path.delimiter)
      .filter(Boolean)
      .map((dir) => path.join(dir, process.platform === 'win32' ? 'node.exe' : 'node'))
      .find((bin) => existsSync(bin) && statSync(bin).isFile() && major(versionOf(bin)) >= MIN_MAJOR);
    if (!found) {
      process.stderr.write(
        `kg needs Node.js ${MIN_MAJOR} or newer; this is Node.js ${process.versions.node} and no newer \`node\` is on PATH.\n` +
          `Install Node.js ${MIN_MAJOR} (https://nodejs.org, or \`nvm install ${MIN_MAJOR}\`), or set KG_NODE to its node binary.\n`,
      );
      process.exit(1);
    }
    run(found, [entry, ...args]);
  }
}
