#!/usr/bin/env bash
# Prints the connection settings of the local infrastructure: eval "$(scripts/infra/env.sh)"
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
echo "export DATABASE_URL=postgres://kg:kg@127.0.0.1:$KG_PG_PORT/kg"
echo "export REDIS_URL=redis://127.0.0.1:$KG_REDIS_PORT"
echo "export KAFKA_BROKERS=127.0.0.1:$KG_KAFKA_PORT"
