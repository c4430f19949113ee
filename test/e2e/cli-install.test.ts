import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { remember } from './support/client';
import { ROOT, cliUser, kg } from './support/cli';

// Every step is a kg process (a second or more on a loaded machine): more than the e2e default of 30 s.
vi.setConfig({ testTimeout: 180_000 });

/** A Node.js older than 24 on this machine, if any (the system one, where Node 24 comes from scripts/node24.sh). */
const OLD_NODE = ['/usr/bin/node', '/usr/local/bin/node'].find((bin) => {
  if (!existsSync(bin)) return false;
  const v = spawnSync(bin, ['-p', 'process.versions.node'], { encoding: 'utf8' }).stdout.trim();
  return Number(v.split('.')[0]) < 24;
});

let key = '';
beforeAll(async () => {
  const { config } = await cliUser('install');
  key = (await kg(['keys', 'create', 'install-test', '--json'], { config })).json().key;
  remember(key);
});

describe('kg installed on its own (npm pack, then npm install -g)', () => {
  let prefix = '';
  beforeAll(() => {
    const dest = mkdtempSync(path.join(tmpdir(), 'kg-pack-'));
    // prepack bundles src/ and the workspace SDK into dist/kg.mjs.
    execFileSync('npm', ['pack', '-w', '@kg/cli', '--pack-destination', dest], { cwd: ROOT, stdio: 'pipe' });
    const tarball = path.join(
      dest,
      readdirSync(dest).find((f) => f.endsWith('.tgz'))!,
    );
    const listing = execFileSync('tar', ['-tzf', tarball], { encoding: 'utf8' }).split('\n').filter(Boolean).sort();
    expect(listing).toEqual(['package/README.md', 'package/bin/kg.js', 'package/dist/kg.mjs', 'package/package.json']);
    prefix = mkdtempSync(path.join(tmpdir(), 'kg-global-'));
    execFileSync('npm', ['install', '-g', '--prefix', prefix, '--prefer-offline', '--no-audit', '--no-fund', tarball], {
      cwd: dest,
      stdio: 'pipe',
    });
  }, 300_000);

  it('runs from the global bin against the server, with the SDK bundled', () => {
    const bin = path.join(prefix, 'bin', 'kg');
    expect(execFileSync(bin, ['--version'], { encoding: 'utf8' }).trim()).toBe('0.1.0');
    const me = spawnSync(bin, ['whoami', '--json'], {
      encoding: 'utf8',
      env: {
        PATH: process.env['PATH'],
        HOME: process.env['HOME'],
        SVC_TOKEN: key,
        SVC_API_URL: `${inject('baseUrl')}/api/v1`,
      },
    });
    expect(me.status, me.stderr).toBe(0);
    expect(JSON.parse(me.stdout)).toMatchObject({ auth: 'api_key' });
  });

  it.skipIf(!OLD_NODE)('on an older Node it says what to install, or runs with KG_NODE', () => {
    const launcher = path.join(prefix, 'lib', 'node_modules', '@kg', 'cli', 'bin', 'kg.js');
    const env = { PATH: path.dirname(OLD_NODE!), HOME: process.env['HOME'] };
    const refused = spawnSync(OLD_NODE!, [launcher, '--version'], { encoding: 'utf8', env });
    expect(refused.status).toBe(1);
    expect(refused.stderr).toMatch(
      /kg needs Node\.js 24 or newer; this is Node\.js \d+\.\d+\.\d+ and no newer `node` is on PATH\./,
    );
    const withNode = spawnSync(OLD_NODE!, [launcher, '--version'], {
      encoding: 'utf8',
      env: { ...env, KG_NODE: process.execPath },
    });
    expect(withNode.status, withNode.stderr).toBe(0);
    expect(withNode.stdout.trim()).toBe('0.1.0');
  });
});

describe('kg in the repository', () => {
  it.skipIf(!OLD_NODE)('an older Node runs it through scripts/node24.sh, exit codes passed through', () => {
    const launcher = path.join(ROOT, 'clients', 'cli', 'bin', 'kg.js');
    const env = {
      PATH: `${path.dirname(OLD_NODE!)}:/usr/bin:/bin`,
      HOME: process.env['HOME'],
      SVC_TOKEN: key,
      SVC_API_URL: `${inject('baseUrl')}/api/v1`,
    };
    const ok = spawnSync(OLD_NODE!, [launcher, 'nodes', 'list', '--json'], { encoding: 'utf8', env, cwd: tmpdir() });
    expect(ok.status, ok.stderr).toBe(0);
    expect(JSON.parse(ok.stdout)).toMatchObject({ page: 1 });
    const missing = spawnSync(OLD_NODE!, [launcher, 'nodes', 'get', 'node_00000000000000000000000000'], {
      encoding: 'utf8',
      env,
    });
    expect(missing.status).toBe(4);
  });
});
