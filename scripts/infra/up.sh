#!/usr/bin/env bash
# Starts PostgreSQL, Redis, Kafka, MinIO and Qdrant on loopback in parallel (installing/fetching them
# on first use; see README.md), waits until all five are ready, then prints the environment a
# deployment would give the services. Fails (non-zero, with log tails) if any did not start.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
declare -A jobs=()
for svc in postgres redis kafka minio qdrant; do
  bash "$INFRA_SCRIPTS/$svc.sh" start &
  jobs[$svc]=$!
done
failed=()
for svc in postgres redis kafka minio qdrant; do
  wait "${jobs[$svc]}" || failed+=("$svc")
done
if [ "${#failed[@]}" -gt 0 ]; then
  die "failed to start: ${failed[*]} (logs in $KG_LOG_DIR)"
fi
bash "$INFRA_SCRIPTS/env.sh" --plain
