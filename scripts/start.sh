#!/usr/bin/env bash
# `npm start`: every service in one process (services/standalone) on Node.js 24
# (scripts/node24.sh), with two memory settings unless the environment sets its own
# (docs/configuration.md, "Memory"):
#   - MALLOC_ARENA_MAX=2: glibc's malloc otherwise keeps up to 8 arenas a core for the threads
#     that allocate (libuv's, the embedder's and the database's threads, onnxruntime's), each
#     holding freed memory of its own;
#   - V8's --max-semi-space-size=16 (MiB): Node.js 24 sizes each isolate's young generation from
#     the machine's memory (64 MiB semi-spaces, 128 MiB a thread, on a 24 GiB machine); 16 was
#     its fixed size before.
set -euo pipefail
cd "$(dirname "$0")/.."
export MALLOC_ARENA_MAX="${MALLOC_ARENA_MAX:-2}"
case " ${NODE_OPTIONS:-} " in
  *" --max-semi-space-size"*) ;;
  *) export NODE_OPTIONS="${NODE_OPTIONS:+$NODE_OPTIONS }--max-semi-space-size=16" ;;
esac
exec scripts/node24.sh node --import tsx services/standalone/src/main.ts "$@"
