#!/usr/bin/env bash
# Prints the path of Debian's Chromium, installing it with apt-get on first use (the browser
# tests drive it through Playwright; Playwright's own browser download is never used).
#   KG_CHROMIUM=/path/to/chromium  skips the lookup and the install.
set -euo pipefail
source "$(dirname "$0")/../infra/lib.sh"
find_chromium() {
  local p
  # The binary itself rather than Debian's /usr/bin/chromium wrapper (which adds /etc/chromium.d flags).
  for p in "${KG_CHROMIUM:-}" /usr/lib/chromium/chromium /usr/bin/chromium /usr/bin/chromium-browser; do
    [ -n "$p" ] && [ -x "$p" ] && { echo "$p"; return 0; }
  done
  return 1
}
find_chromium && exit 0
# chromium-headless-shell is not packaged everywhere; chromium itself runs headless.
apt_install chromium fonts-dejavu-core >&2
find_chromium || die "chromium was installed but is not at /usr/lib/chromium/chromium"
