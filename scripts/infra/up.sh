#!/usr/bin/env bash
# Starts PostgreSQL, Redis and Kafka on loopback (installing them on first use) and prints
# the environment a deployment would give the services.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
bash "$INFRA_SCRIPTS/redis.sh" start &
redis=$!
bash "$INFRA_SCRIPTS/kafka.sh" start &
kafka=$!
bash "$INFRA_SCRIPTS/postgres.sh" start
wait "$redis"
wait "$kafka"
bash "$INFRA_SCRIPTS/env.sh"
