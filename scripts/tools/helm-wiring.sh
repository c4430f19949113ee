#!/usr/bin/env bash
# The Helm wiring test (scripts/tools/helm-wiring.ts): renders the chart with production-like
# values, runs the migrations Job's steps and every Deployment's container as local processes
# with exactly their rendered env (hosts rewritten to the scripts/infra servers), and drives a
# smoke pass of the e2e suite through the gateway. Starts and stops scripts/infra itself: on a
# shared machine run it under `flock /tmp/kg-distributed.lock`.
#
#   bash scripts/tools/helm-wiring.sh            # the whole test (~2 min warm)
#   bash scripts/tools/helm-wiring.sh --static   # the env, Secret, port and host checks only (seconds)
#   bash scripts/tools/helm-wiring.sh --static --mutate rename-env|wrong-url|wrong-replicas-url|wrong-secret-key  # must fail
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
BIN="$(bash scripts/tools/install.sh helm)"
export PATH="$BIN:$PATH"
bash scripts/models/fetch-minilm.sh
exec scripts/node24.sh tsx scripts/tools/helm-wiring.ts "$@"
