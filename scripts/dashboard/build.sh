#!/usr/bin/env bash
# npm run build:dashboard: clients/dashboard/dist, which the gateway serves at / (a few seconds).
# Skipped when the sources are unchanged since the last build (dist/.source-hash). Several
# servers may run from one checkout (npm start, tests), so builds take a lock, write into a
# temporary directory, add the new hashed assets beside the old ones (a page loaded before
# the rebuild still finds its chunks) and replace index.html last, in one rename.
set -euo pipefail
cd "$(dirname "$0")/../../clients/dashboard"
exec 9>.build.lock
flock -w 600 9
hash=$(
  {
    find src public index.html vite.config.ts tsconfig.json package.json ../sdk/src/capture-kinds.ts ../../packages/bookmarks/src/url.ts ../../scripts/dashboard/icons.ts -type f -print0 | sort -z | xargs -0 sha256sum
    sha256sum ../../package-lock.json
  } | sha256sum | cut -d' ' -f1
)
if [ -f dist/index.html ] && [ "$(cat dist/.source-hash 2>/dev/null)" = "$hash" ]; then
  exit 0
fi
# Inside dist/, which git, ESLint and Prettier ignore: a lint running beside a build must not
# list files that vanish before it reads them (it did, in CI).
mkdir -p dist
tmp=$(mktemp -d dist/.build-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
# Always the production build: run from a test (NODE_ENV=test) vite would bundle React's
# development build, and the unchanged source hash would then have npm start serve it.
NODE_ENV=production ../../scripts/node24.sh vite build --logLevel warn --outDir "$tmp" --emptyOutDir
# The installable app's PNG icons (manifest.webmanifest), drawn from the favicon's shapes.
../../scripts/node24.sh tsx ../../scripts/dashboard/icons.ts "$tmp"
mkdir -p dist/assets
cp -R "$tmp/assets/." dist/assets/
find "$tmp" -maxdepth 1 -type f ! -name index.html -exec cp {} dist/ \;
cp "$tmp/index.html" dist/.index.html.new
mv -f dist/.index.html.new dist/index.html
echo "$hash" > dist/.source-hash
