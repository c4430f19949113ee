#!/usr/bin/env bash
# Images of the scripts/k8s cluster, built with buildah (no daemon, no registry) and imported
# into its containerd (the cluster must be up):
#   images.sh cluster          the pod sandbox (localhost/pause:3.10) and CoreDNS
#   images.sh app TAG…         the service image (scripts/tools/build-image.sh) under each TAG
#                              (localhost/knowledge-graph:TAG)
#   images.sh app-archive      only build the service image's archive (no cluster needed)
#   images.sh infra            PostgreSQL, Redis, Kafka, MinIO, Qdrant (images-infra.sh)
#   images.sh tests            the chart's `helm test` image: curl and sh (localhost/curl:8,
#                              Debian's curl on a minbase debootstrap)
# Archives are cached in $KG_K8S_CACHE/images, keyed by what they hold.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
source "$ROOT/scripts/k8s/lib.sh"
ARCHIVES="$K8S_CACHE/images"
mkdir -p "$ARCHIVES"
# (grep reads to the end: with -q it would stop early, and pipefail would see ctr die of SIGPIPE.)
have() { ctr_ images ls -q | grep -x "$1" >/dev/null; }

# scratch_image NAME BINARY ENTRYPOINT-JSON [buildah config args…]: one static binary in an empty image.
scratch_image() {
  local name=$1 bin=$2 entry=$3 key archive
  shift 3
  key="$(sha256sum "$bin" | cut -c1-12)"
  archive="$ARCHIVES/$(tr '/:' '__' <<<"$name")-$key.tar"
  have "$name" && [[ -f "$archive" ]] && return 0
  if [[ ! -f "$archive" ]]; then
    local c
    c=$(bh from scratch)
    bh copy "$c" "$bin" "/$(basename "$bin")" >/dev/null
    bh config --entrypoint "$entry" "$@" "$c"
    bh commit --quiet "$c" "$name" >/dev/null
    bh rm "$c" >/dev/null
    rm -f "$ARCHIVES/$(tr '/:' '__' <<<"$name")"-*.tar
    bh push --quiet "$name" "docker-archive:$archive:$name"
  fi
  import_image "$name" "$archive"
}

# app_archive: the service image (scripts/tools/build-image.sh) saved as a docker-archive;
# prints "IMAGE ARCHIVE ID". Keyed by the files the Dockerfile reads (tracked and untracked,
# as they are on disk): when the archive of the same files exists, nothing is built, so CI
# builds it in the background while the tests run (`images.sh app-archive`, no cluster needed)
# and test:k8s only imports it.
app_archive() {
  local key stamp image driver cache id archive
  key="$( (cd "$ROOT" && echo "${KG_NODE_VERSION:-}/${KG_NPM_VERSION:-}/${KG_IMAGE:-}" &&
    git ls-files -z -co --exclude-standard -- package.json package-lock.json .npmrc 'tsconfig*.json' \
      packages services clients 'test/*/package.json' deploy/docker scripts/models scripts/dashboard/icons.ts scripts/tools/build-image.sh |
    xargs -0 sha256sum 2>/dev/null || true) | sha256sum | cut -c1-16)"
  stamp="$ARCHIVES/knowledge-graph.source"
  # One build at a time: CI's background build and test:k8s may both ask for it.
  exec 8>"$ARCHIVES/knowledge-graph.lock"
  flock -w 3600 8 || die "another images.sh has held $ARCHIVES/knowledge-graph.lock for an hour"
  if read -r skey image archive id <"$stamp" 2>/dev/null && [[ "$skey" == "$key" && -f "$archive" ]]; then
    log "service image $image: already built from these files (${id:0:12})"
    echo "$image $archive $id"
    return 0
  fi
  image="$(bash "$ROOT/scripts/tools/build-image.sh")"
  # buildah on build-image.sh's storage (the driver it chose is in its cache).
  cache="${KG_IMAGE_CACHE:-$HOME/.cache/kg/image}"
  driver="$(cat "$cache/driver")"
  image_bh() { buildah --root "$cache/storage-$driver" --runroot "$cache/run-$driver" --storage-driver "$driver" "$@"; }
  id="$(image_bh inspect --type image --format '{{.FromImageID}}' "$image")"
  archive="$ARCHIVES/knowledge-graph-${id:0:12}.tar"
  if [[ ! -f "$archive" ]]; then
    rm -f "$ARCHIVES"/knowledge-graph-*.tar
    image_bh push --quiet "$image" "docker-archive:$archive:$image"
  fi
  echo "$key $image $archive $id" >"$stamp"
  echo "$image $archive $id"
}

case "${1:-}" in
  cluster)
    scratch_image localhost/pause:3.10 "$K8S_BIN/pause" '["/pause"]' --user 65535:65535
    scratch_image localhost/coredns:local "$K8S_BIN/coredns" '["/coredns"]'
    ;;
  app-archive) app_archive >/dev/null ;;
  app)
    shift
    [[ $# -gt 0 ]] || die "images.sh app TAG…"
    built="$(app_archive)"
    read -r image archive id <<<"$built"
    # Imported into this cluster already (test:k8s after CI's `test.sh --prepare`): the mark
    # lives in the cluster's state, which down.sh removes.
    mark="$K8S_STATE/images-app"
    if [[ "$(cat "$mark" 2>/dev/null)" != "$id" ]] || ! have "$image"; then
      import_image "$image" "$archive"
      echo "$id" >"$mark"
    fi
    for tag in "$@"; do
      ctr_ images tag --force "$image" "localhost/knowledge-graph:$tag" >/dev/null
      log "image localhost/knowledge-graph:$tag = $image (${id:0:12})"
    done
    ;;
  infra) bash "$K8S_SCRIPTS/images-infra.sh" ;;
  tests)
    name=localhost/curl:8
    archive="$ARCHIVES/curl-bookworm.tar"
    have "$name" && [[ -f "$archive" ]] && exit 0
    if [[ ! -f "$archive" ]]; then
      rootfs="$K8S_CACHE/rootfs/curl"
      rm -rf "$rootfs"
      debootstrap --variant=minbase --include=curl,ca-certificates bookworm "$rootfs" http://deb.debian.org/debian \
        >"$K8S_CACHE/debootstrap-curl.log" 2>&1 || { tail -n 20 "$K8S_CACHE/debootstrap-curl.log" >&2; exit 1; }
      rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/* "$rootfs"/usr/share/{doc,man,locale}
      c=$(bh from scratch)
      bh copy "$c" "$rootfs/" / >/dev/null
      bh config --cmd '["/bin/sh"]' --user 65534:65534 "$c"
      bh commit --quiet "$c" "$name" >/dev/null
      bh rm "$c" >/dev/null
      rm -rf "$rootfs"
      bh push --quiet "$name" "docker-archive:$archive:$name"
    fi
    import_image "$name" "$archive"
    ;;
  *) die "usage: images.sh cluster | app TAG… | app-archive | infra | tests" ;;
esac
