#!/usr/bin/env bash
# Runs a command with Node.js >= 24 first on PATH, like a Gradle wrapper brings its Gradle.
# Uses the `node` on PATH when it is already >= 24; otherwise installs the pinned
# `node` package from the npm registry once into .tools/node24 (git-ignored) and uses that.
# Usage: scripts/node24.sh <command> [args...]   e.g. scripts/node24.sh vitest run
set -euo pipefail
NODE_VERSION="${KG_NODE_VERSION:-24.21.0}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
tools="$root/.tools/node24"

major() { "$1" -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0; }

if command -v node >/dev/null 2>&1 && [ "$(major node)" -ge 24 ]; then
  :
else
  if [ ! -x "$tools/node_modules/.bin/node" ] || [ "$(major "$tools/node_modules/.bin/node")" -lt 24 ]; then
    echo "node24: installing Node.js $NODE_VERSION into .tools/node24 (once)" >&2
    mkdir -p "$tools"
    # flock keeps parallel first runs from installing twice.
    (
      flock 9
      if [ ! -x "$tools/node_modules/.bin/node" ]; then
        npm install --prefix "$tools" --no-save --no-audit --no-fund --loglevel=error "node@$NODE_VERSION" >&2
      fi
    ) 9>"$root/.tools/.node24.lock"
  fi
  export PATH="$tools/node_modules/.bin:$PATH"
fi
export PATH="$root/node_modules/.bin:$PATH"
exec "$@"
