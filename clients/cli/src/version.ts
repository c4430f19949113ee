import { createRequire } from 'node:module';

/** The package version, read from package.json (bundled into dist/kg.mjs by the build). */
export const VERSION: string = (createRequire(import.meta.url)('../package.json') as { version: string }).version;
