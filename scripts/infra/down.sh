#!/usr/bin/env bash
# Stops Qdrant, MinIO, Kafka, Redis and PostgreSQL started by up.sh (in parallel). Data stays under
# KG_INFRA_DIR, so a later up.sh starts quickly with the same databases and topics.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
declare -A jobs=()
for svc in qdrant minio kafka redis postgres; do
  bash "$INFRA_SCRIPTS/$svc.sh" stop &
  jobs[$svc]=$!
done
failed=()
for svc in qdrant minio kafka redis postgres; do
  wait "${jobs[$svc]}" || failed+=("$svc")
done
if [ "${#failed[@]}" -gt 0 ]; then die "failed to stop: ${failed[*]}"; fi
