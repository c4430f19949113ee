#!/usr/bin/env bash
# Stops Kafka, Redis and PostgreSQL started by up.sh (data stays under KG_INFRA_DIR).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
bash "$INFRA_SCRIPTS/kafka.sh" stop || true
bash "$INFRA_SCRIPTS/redis.sh" stop || true
bash "$INFRA_SCRIPTS/postgres.sh" stop || true
