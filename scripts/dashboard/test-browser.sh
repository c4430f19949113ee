#!/usr/bin/env bash
# npm run test:browser: builds the dashboard, finds (or installs with apt-get) Debian's
# Chromium, and runs the Playwright tests of clients/dashboard against the embedded server
# their global setup starts on a fresh DATA_DIR. Extra arguments go to `playwright test`.
# Screenshots, traces and the HTML report land in browser-results/ (git-ignored).
set -euo pipefail
cd "$(dirname "$0")/../.."
bash scripts/models/fetch-minilm.sh
bash scripts/dashboard/build.sh
# The browser extension as its tests load it: the loopback origin granted up front (a headless
# browser cannot answer the permission prompt the options page shows), in its own output folder.
KG_EXTENSION_GRANT_HOSTS=http://127.0.0.1 KG_EXTENSION_OUT=.output-test npm run --silent build:chrome -w @kg/extension >/dev/null
# ...and as if the person had also allowed `tabs` in the options (the badge on any site).
KG_EXTENSION_GRANT_HOSTS=http://127.0.0.1 KG_EXTENSION_GRANT_TABS=1 KG_EXTENSION_OUT=.output-test-tabs npm run --silent build:chrome -w @kg/extension >/dev/null
KG_CHROMIUM="$(bash scripts/dashboard/chromium.sh)"
export KG_CHROMIUM PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1
mkdir -p browser-results/screens
exec scripts/node24.sh playwright test -c clients/dashboard/playwright.config.ts "${KG_PLAYWRIGHT_PROJECT:---project=browser}" "$@"
