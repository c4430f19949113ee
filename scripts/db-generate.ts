/**
 * Generates numbered SQL migrations for every service that owns tables, from its
 * drizzle schema (drizzle-kit generate). Commit the result.
 * Usage: npm run db:generate [-- <service>...] [--name=<migration_name>]
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';

const args = process.argv.slice(2);
const name = args.find((a) => a.startsWith('--name='));
const named = args.filter((a) => !a.startsWith('--'));
const services = named.length ? named : ['auth', 'graph', 'para', 'captures', 'search'];
for (const service of services) {
  const dir = path.resolve('services', service);
  if (!existsSync(path.join(dir, 'drizzle.config.ts'))) continue;
  console.log(`drizzle-kit generate: ${service}`);
  execFileSync('drizzle-kit', ['generate', '--config', 'drizzle.config.ts', ...(name ? [name] : [])], {
    cwd: dir,
    stdio: 'inherit',
  });
}
