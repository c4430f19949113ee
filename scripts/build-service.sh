#!/usr/bin/env bash
# Bundles a service's (or the host's) main.ts into dist/main.mjs with esbuild: one file
# with every workspace package and dependency inside, runnable with plain `node`.
# PGlite stays external (it loads its WebAssembly files at run time), and so does the
# optional native pg binding. Run from the service folder (Nx `build` target).
set -euo pipefail
exec "$(dirname "$0")/node24.sh" esbuild src/main.ts --bundle --platform=node --format=esm --target=node24 \
  --outfile=dist/main.mjs --external:pg-native --external:@electric-sql/pglite --log-level=warning \
  "--banner:js=import { createRequire as __kgCreateRequire } from 'node:module'; const require = __kgCreateRequire(import.meta.url);"
