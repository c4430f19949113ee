import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');
const dist = path.join(root, 'clients/dashboard/dist');

describe('scripts/dashboard/build.sh', () => {
  it('builds the production bundle even when run from a test (NODE_ENV=test)', () => {
    // Vitest sets NODE_ENV=test, which vite would honour with React's development build; an
    // unchanged source hash would then have `npm start` serve that build.
    execFileSync('bash', [path.join(root, 'scripts/dashboard/build.sh')], {
      env: { ...process.env, NODE_ENV: 'test' },
      stdio: 'ignore',
    });
    const entry = /src="\/(assets\/index-[\w-]+\.js)"/.exec(readFileSync(path.join(dist, 'index.html'), 'utf8'))?.[1];
    expect(entry).toBeDefined();
    // React's development build names its stack frames (component stacks); the production one does not.
    expect(readFileSync(path.join(dist, entry!), 'utf8')).not.toContain('react-stack-top-frame');
  }, 120_000);
});
