#!/usr/bin/env bash
# Builds the image (scripts/tools/build-image.sh) and boots it: the gateway and the search
# service run from the image against the scripts/infra servers and must answer /readyz 200,
# and the image must embed a sentence with no network (scripts/tools/image-boot.ts). Starts
# and stops scripts/infra itself: on a shared machine run it under
# `flock /tmp/kg-distributed.lock`. KG_IMAGE_SKIP_BUILD=1 boots the image built last.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
if [[ "${KG_IMAGE_SKIP_BUILD:-}" == 1 ]]; then
  IMAGE="${KG_IMAGE:-localhost/knowledge-graph:dev}"
else
  IMAGE="$(bash scripts/tools/build-image.sh)"
fi
bash scripts/infra/up.sh >/dev/null
set +e
KG_IMAGE="$IMAGE" scripts/node24.sh tsx scripts/tools/image-boot.ts
rc=$?
set -e
bash scripts/infra/down.sh >/dev/null
exit $rc
