#!/usr/bin/env bash
# `images.sh infra`: the images of the test dependencies (deploy/test-infra/manifests) and the
# chart's Qdrant, built with buildah (no daemon, no registry) from the sources scripts/infra
# uses and imported into the cluster's containerd:
#   localhost/kg-postgres:15       Debian's postgresql-15 (deploy/test-infra/images/postgres-entrypoint.sh)
#   localhost/kg-redis:7           Debian's redis-server
#   localhost/kg-kafka:<version>   the Maven jars of scripts/infra/kafka/pom.xml on Debian's openjdk-17-jre-headless
#   localhost/kg-minio:<version>   the MinIO binary scripts/infra/minio.sh builds from the Go proxy
#   localhost/qdrant:v1.18.3       ../shared/bin/qdrant (QDRANT_BIN) laid out as the official image
# All start from one Debian bookworm minbase (debootstrap, cached as a tarball under
# $KG_K8S_CACHE/rootfs) and add Debian packages with apt inside buildah (its lists and .debs
# cached outside the images). Each image is keyed by what it holds (versions, input files,
# this script): its docker-archive stays in $KG_K8S_CACHE/images, and an image already in
# containerd under the same key costs nothing. KG_DEBIAN_MIRROR overrides deb.debian.org;
# KG_INFRA_IMAGES_BUILD_ONLY=1 builds the archives without a running cluster.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
source "$ROOT/scripts/k8s/lib.sh"
SUITE=bookworm
MIRROR="${KG_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
ARCHIVES="$K8S_CACHE/images"
ROOTFS="$K8S_CACHE/rootfs/$SUITE-minbase.tar"
APT_CACHE="$K8S_CACHE/apt"
MARKS="$K8S_STATE/images-infra" # key of each image imported into this cluster (down.sh removes it)
FILES="$ROOT/deploy/test-infra/images"
INFRA_CACHE="${KG_CACHE_DIR:-$HOME/.cache/kg-infra}" # scripts/infra's download cache
KAFKA_POM="$ROOT/scripts/infra/kafka/pom.xml"
KAFKA_VERSION="$(sed -n 's:.*<kafka.version>\(.*\)</kafka.version>.*:\1:p' "$KAFKA_POM")"
KAFKA_LIBS="$INFRA_CACHE/kafka-$KAFKA_VERSION/libs"
MINIO_VERSION="${KG_MINIO_VERSION:-$(sed -n 's/^MINIO_VERSION="\${KG_MINIO_VERSION:-\([^}]*\)}"$/\1/p' "$ROOT/scripts/infra/minio.sh")}"
MINIO_BIN="$INFRA_CACHE/minio/$MINIO_VERSION/minio"
QDRANT_BIN="${QDRANT_BIN:-$ROOT/../shared/bin/qdrant}"
QDRANT_VERSION=v1.18.3 # the chart's qdrant.image.tag
[[ -n "$KAFKA_VERSION" ]] || die "no <kafka.version> in $KAFKA_POM"
[[ -n "$MINIO_VERSION" ]] || die "no MINIO_VERSION in scripts/infra/minio.sh"
mkdir -p "$ARCHIVES" "$(dirname "$ROOTFS")" "$APT_CACHE/lists/partial" "$APT_CACHE/archives/partial"
# One run at a time (the apt cache, the base and buildah's names are shared).
exec 9>"$K8S_CACHE/images-infra.lock"
flock -w 1800 9 || die "another images-infra.sh has held $K8S_CACHE/images-infra.lock for 30 minutes"
SELF="$(cat "${BASH_SOURCE[0]}" | sha256sum | cut -c1-16)"

# 1. The shared base: debootstrap --variant=minbase, documentation left out of every later
#    package (dpkg path-exclude), made once and kept as a tarball and a buildah image.
if [[ ! -s "$ROOTFS" ]]; then
  started=$SECONDS
  work="$(mktemp -d "$K8S_CACHE/rootfs/work.XXXXXX")"
  trap 'rm -rf "$work"' EXIT
  log "debootstrap --variant=minbase $SUITE (once; cached in $ROOTFS)"
  debootstrap --variant=minbase "$SUITE" "$work/rootfs" "$MIRROR" >"$work/debootstrap.log" 2>&1 ||
    { tail -n 30 "$work/debootstrap.log" >&2; die "debootstrap failed"; }
  r="$work/rootfs"
  printf 'deb %s %s main\ndeb %s %s-updates main\ndeb http://deb.debian.org/debian-security %s-security main\n' \
    "$MIRROR" "$SUITE" "$MIRROR" "$SUITE" "$SUITE" >"$r/etc/apt/sources.list"
  printf '%s\n' 'path-exclude=/usr/share/doc/*' 'path-include=/usr/share/doc/*/copyright' \
    'path-exclude=/usr/share/man/*' 'path-exclude=/usr/share/info/*' 'path-exclude=/usr/share/locale/*' \
    'path-exclude=/usr/share/lintian/*' >"$r/etc/dpkg/dpkg.cfg.d/01-kg-nodoc"
  find "$r/usr/share/doc" -mindepth 2 ! -name copyright ! -type d -delete 2>/dev/null || true
  rm -rf "$r/usr/share/man/"* "$r/usr/share/info/"* "$r/usr/share/locale/"* \
    "$r/var/cache/apt/archives/"*.deb "$r/var/lib/apt/lists/"* "$r/var/log/"*.log
  tar -C "$r" -cf "$work/rootfs.tar" .
  mv "$work/rootfs.tar" "$ROOTFS"
  sha256sum "$ROOTFS" | cut -c1-12 >"$ROOTFS.key"
  rm -rf "$work"
  trap - EXIT
  log "base rootfs ready in $((SECONDS - started)) s ($(du -h "$ROOTFS" | cut -f1))"
fi
[[ -s "$ROOTFS.key" ]] || sha256sum "$ROOTFS" | cut -c1-12 >"$ROOTFS.key"
BASE="localhost/kg-infra-base:$SUITE-$(cat "$ROOTFS.key")"

base_image() { # the buildah image of the tarball, once per storage
  bh inspect --type image "$BASE" >/dev/null 2>&1 && return 0
  local c
  c=$(bh from scratch)
  bh add --quiet "$c" "$ROOTFS" / >/dev/null
  bh config --env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin --env LANG=C.UTF-8 "$c"
  bh commit --quiet "$c" "$BASE" >/dev/null
  bh rm "$c" >/dev/null
}

# apt_in CONTAINER PACKAGE…: installs Debian packages into a working container (lists and
# .debs in $APT_CACHE, mounted, never in a layer; services are never started).
apt_in() {
  local c=$1
  shift
  bh run --network host -v "$APT_CACHE/lists:/var/lib/apt/lists" -v "$APT_CACHE/archives:/var/cache/apt/archives" \
    "$c" -- sh -ec '
      export DEBIAN_FRONTEND=noninteractive
      printf "#!/bin/sh\nexit 101\n" >/usr/sbin/policy-rc.d && chmod +x /usr/sbin/policy-rc.d
      mkdir -p /usr/share/man/man1
      apt-get update -qq
      apt-get install -y -qq --no-install-recommends "$@" >/dev/null
      rm -f /usr/sbin/policy-rc.d
      rm -rf /usr/share/man/* /var/cache/apt/*.bin /var/log/apt /var/log/dpkg.log /var/cache/debconf/*-old \
        /var/lib/dpkg/*-old' \
    sh "$@"
}

# Each image: build_<what> CONTAINER fills a container made from the base.
build_postgres() {
  local c=$1
  # A fixed uid/gid (999), so the manifest can name it; no cluster made by the package.
  bh run "$c" -- sh -ec 'groupadd -r -g 999 postgres && useradd -r -u 999 -g postgres -d /var/lib/postgresql -s /bin/bash postgres
    mkdir -p /etc/postgresql-common/createcluster.d
    echo "create_main_cluster = false" >/etc/postgresql-common/createcluster.d/kg.conf'
  apt_in "$c" postgresql-15
  bh run "$c" -- sh -ec 'rm -rf /etc/postgresql/15 /var/lib/postgresql/15
    mkdir -p /var/lib/postgresql/data /var/run/postgresql
    chown postgres:postgres /var/lib/postgresql /var/lib/postgresql/data /var/run/postgresql'
  bh copy --quiet --chmod 0755 "$c" "$FILES/postgres-entrypoint.sh" /usr/local/bin/kg-postgres-entrypoint
  bh config --user 999:999 --env PGDATA=/var/lib/postgresql/data/pgdata --stop-signal SIGINT --port 5432 \
    --entrypoint '["/usr/local/bin/kg-postgres-entrypoint"]' --cmd '[]' "$c"
}
build_redis() {
  local c=$1
  bh run "$c" -- sh -ec 'groupadd -r -g 999 redis && useradd -r -u 999 -g redis -d /var/lib/redis -s /usr/sbin/nologin redis'
  apt_in "$c" redis-server
  bh run "$c" -- sh -ec 'mkdir -p /data && chown redis:redis /data'
  bh config --user 999:999 --workingdir /data --port 6379 --entrypoint '["/usr/bin/redis-server"]' \
    --cmd '["--protected-mode","no","--bind","0.0.0.0","--port","6379","--dir","/data","--save","","--appendonly","no"]' "$c"
}
build_kafka() {
  local c=$1
  bh run "$c" -- sh -ec 'groupadd -g 10001 kafka && useradd -u 10001 -g kafka -d /var/lib/kafka -s /bin/bash kafka'
  apt_in "$c" openjdk-17-jre-headless
  bh run "$c" -- sh -ec 'mkdir -p /opt/kafka/libs /var/lib/kafka/data && chown -R kafka:kafka /var/lib/kafka'
  bh copy --quiet "$c" "$KAFKA_LIBS/" /opt/kafka/libs/
  bh copy --quiet "$c" "$FILES/kafka-log4j2-tools.properties" /opt/kafka/log4j2-tools.properties
  bh copy --quiet --chmod 0755 "$c" "$FILES/kafka-entrypoint.sh" /usr/local/bin/kg-kafka-entrypoint
  bh copy --quiet --chmod 0755 "$c" "$FILES/kafka-ready.sh" /usr/local/bin/kafka-ready
  bh copy --quiet --chmod 0755 "$c" "$FILES/kafka-topics.sh" /usr/local/bin/kafka-topics
  bh config --user 10001:10001 --env KAFKA_DATA_DIR=/var/lib/kafka/data --port 9092 \
    --label "org.apache.kafka.version=$KAFKA_VERSION" \
    --entrypoint '["/usr/local/bin/kg-kafka-entrypoint"]' --cmd '[]' "$c"
}
build_minio() {
  local c=$1
  bh run "$c" -- sh -ec 'groupadd -g 10001 minio && useradd -u 10001 -g minio -d /data -s /usr/sbin/nologin minio
    mkdir -p /data && chown minio:minio /data'
  bh copy --quiet --chmod 0755 "$c" "$MINIO_BIN" /usr/local/bin/minio
  bh config --user 10001:10001 --env HOME=/tmp --env MINIO_BROWSER=off --env MINIO_UPDATE=off \
    --port 9000 --label "io.min.version=$MINIO_VERSION" --entrypoint '["/usr/local/bin/minio"]' \
    --cmd '["server","/data","--address",":9000","--console-address",":9001"]' "$c"
}
build_qdrant() {
  # As qdrant/qdrant: WORKDIR /qdrant with ./qdrant and ./entrypoint.sh, storage and
  # snapshots below it (volumes in the chart), no config file (the built-in defaults; the
  # chart sets the rest with QDRANT__* variables), the CA certificates.
  local c=$1
  # Its HTTP client refuses to start without the system's CA certificates.
  apt_in "$c" ca-certificates
  bh run "$c" -- sh -ec 'mkdir -p /qdrant/storage /qdrant/snapshots /qdrant/config'
  bh copy --quiet --chmod 0755 "$c" "$QDRANT_BIN" /qdrant/qdrant
  bh copy --quiet --chmod 0755 "$c" "$FILES/qdrant-entrypoint.sh" /qdrant/entrypoint.sh
  bh config --workingdir /qdrant --user 10001:10001 --env TZ=Etc/UTC --env RUN_MODE=production \
    --port 6333 --port 6334 --label "org.opencontainers.image.version=$QDRANT_VERSION" \
    --entrypoint '["./entrypoint.sh"]' --cmd '[]' "$c"
}

# (grep reads the whole list: with -q it would stop early and ctr's SIGPIPE fail the pipeline)
have() { ctr_ images ls -q 2>/dev/null | grep -x "$1" >/dev/null; }

# image NAME WHAT KEY-INPUT…: builds (unless its archive is cached) and imports one image.
image() {
  local name=$1 what=$2 key archive file c started size
  shift 2
  key="$( (echo "$BASE $SELF"; for f in "$@"; do sha256sum <"$f"; done) | sha256sum | cut -c1-12)"
  file="$(tr '/:' '__' <<<"$name")"
  archive="$ARCHIVES/$file-$key.tar"
  if [[ -f "$archive" ]] && [[ "$(cat "$MARKS/$file" 2>/dev/null)" == "$key" ]] && have "$name"; then
    log "image $name ($key): in the cluster already"
    return 0
  fi
  if [[ ! -f "$archive" ]]; then
    started=$SECONDS
    base_image
    c=$(bh from --quiet "$BASE")
    # shellcheck disable=SC2064 # expanded now: the working container of this image
    trap "bh rm '$c' >/dev/null 2>&1; rm -f '$archive.tmp' '$kafka_list'" EXIT
    "build_$what" "$c"
    bh config --label "dev.kg.infra.key=$key" "$c"
    bh commit --quiet --rm "$c" "$name" >/dev/null
    trap 'rm -f "$kafka_list"' EXIT
    rm -f "$ARCHIVES/$file"-*.tar
    bh push --quiet "$name" "docker-archive:$archive.tmp:$name"
    mv "$archive.tmp" "$archive"
    size="$(bh images --format '{{.Size}}' "$name" | head -n 1)"
    log "image $name ($key) built in $((SECONDS - started)) s: $size"
  fi
  [[ -n "${KG_INFRA_IMAGES_BUILD_ONLY:-}" ]] && return 0
  started=$SECONDS
  import_image "$name" "$archive"
  log "image $name ($key) imported in $((SECONDS - started)) s"
  mkdir -p "$MARKS"
  echo "$key" >"$MARKS/$file"
}

# The inputs, each fetched by the infra scripts' own means when missing.
[[ -x "$QDRANT_BIN" ]] || die "no Qdrant binary at $QDRANT_BIN (expected ../shared/bin/qdrant beside the repository, as scripts/infra/qdrant.sh; set QDRANT_BIN=/path/to/qdrant)"
"$QDRANT_BIN" --version 2>/dev/null | grep -qx "qdrant ${QDRANT_VERSION#v}" ||
  die "$QDRANT_BIN is not Qdrant ${QDRANT_VERSION#v} ($("$QDRANT_BIN" --version 2>&1 | head -n 1)): the image is tagged $QDRANT_VERSION"
bash "$ROOT/scripts/infra/minio.sh" install
[[ -x "$MINIO_BIN" ]] || die "scripts/infra/minio.sh install left no binary at $MINIO_BIN"
if [[ ! -d "$KAFKA_LIBS" ]]; then # as scripts/infra/kafka.sh fetch_jars: Maven copies them, once
  command -v mvn >/dev/null || die "mvn not found: Kafka's jars come from Maven Central (apt-get install maven)"
  log "fetching Kafka $KAFKA_VERSION jars with Maven (once; cached in $KAFKA_LIBS)"
  tmp="$KAFKA_LIBS.tmp.$$"
  rm -rf "$tmp" && mkdir -p "$(dirname "$KAFKA_LIBS")"
  mvn -q -B -f "$KAFKA_POM" dependency:copy-dependencies -DincludeScope=runtime -DoutputDirectory="$tmp" >&2 ||
    { rm -rf "$tmp"; die "Maven could not fetch Kafka $KAFKA_VERSION"; }
  mv "$tmp" "$KAFKA_LIBS"
fi
kafka_list="$(mktemp)"
trap 'rm -f "$kafka_list"' EXIT
(cd "$KAFKA_LIBS" && ls | sort) >"$kafka_list"

image localhost/kg-postgres:15 postgres "$FILES/postgres-entrypoint.sh"
image localhost/kg-redis:7 redis /dev/null
image "localhost/kg-kafka:$KAFKA_VERSION" kafka "$kafka_list" "$FILES"/kafka-*
image "localhost/kg-minio:$MINIO_VERSION" minio "$MINIO_BIN"
image "localhost/qdrant:$QDRANT_VERSION" qdrant "$QDRANT_BIN" "$FILES/qdrant-entrypoint.sh"
# What piles up in buildah's storage: the previous image of a tag, dangling layers.
bh rmi --prune >/dev/null 2>&1 || true
