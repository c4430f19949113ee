#!/usr/bin/env bash
# npm run build:dashboard: clients/dashboard/dist, which the gateway serves at / (a few seconds).
set -euo pipefail
cd "$(dirname "$0")/../../clients/dashboard"
exec ../../scripts/node24.sh vite build --logLevel warn
