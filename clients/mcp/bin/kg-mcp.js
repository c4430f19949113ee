#!/usr/bin/env node
// kg-mcp launcher. Plain JavaScript so that any Node.js (20 included) can start it:
// - installed on its own (npm install -g): runs the bundle in dist/ (built by `npm run build`,
//   and by `npm pack` through prepack), which needs Node.js 20 or later;
// - in the repository: runs the TypeScript sources through tsx on Node.js 24, and on an older
//   Node.js starts itself again through scripts/node24.sh, which brings Node.js 24.
// Nothing but the MCP protocol may reach stdout: every message of this file goes to stderr.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const self = fileURLToPath(import.meta.url);
const pkg = path.resolve(path.dirname(self), '..');
const source = path.join(pkg, 'src', 'main.ts');
const bundle = path.join(pkg, 'dist', 'kg-mcp.js');
const node24 = path.resolve(pkg, '..', '..', 'scripts', 'node24.sh');
const major = Number(process.versions.node.split('.')[0]);

if (!existsSync(source)) {
  if (major < 20) {
    process.stderr.write(`kg-mcp needs Node.js 20 or later (this is ${process.version})\n`);
    process.exit(1);
  }
  await import(pathToFileURL(bundle).href);
} else if (major >= 24) {
  const { register } = await import('tsx/esm/api');
  register();
  await import(pathToFileURL(source).href);
} else if (existsSync(node24)) {
  const child = spawn('bash', [node24, 'node', self, ...process.argv.slice(2)], { stdio: 'inherit' });
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => child.kill(signal));
  child.on('exit', (code, signal) => (signal ? process.kill(process.pid, signal) : process.exit(code ?? 1)));
} else {
  process.stderr.write(
    `kg-mcp: the sources need Node.js 24 (this is ${process.version}); run \`npm run build\` first\n`,
  );
  process.exit(1);
}
