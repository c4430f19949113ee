#!/usr/bin/env bash
# Prints the connection settings of the local infrastructure as export lines, for
# eval "$(scripts/infra/env.sh)"; with --plain, as KEY=VALUE lines (a dotenv file).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
prefix="export "
if [ "${1:-}" = "--plain" ]; then prefix=""; fi
echo "${prefix}DATABASE_URL=postgres://kg:kg@127.0.0.1:$KG_PG_PORT/kg"
echo "${prefix}REDIS_URL=redis://127.0.0.1:$KG_REDIS_PORT"
echo "${prefix}KAFKA_BROKERS=127.0.0.1:$KG_KAFKA_PORT"
echo "${prefix}BLOB_STORE=s3"
echo "${prefix}S3_ENDPOINT=http://127.0.0.1:$KG_MINIO_PORT"
echo "${prefix}S3_BUCKET=kg-kg"
echo "${prefix}S3_ACCESS_KEY_ID=$KG_MINIO_USER"
echo "${prefix}S3_SECRET_ACCESS_KEY=$KG_MINIO_PASSWORD"
echo "${prefix}S3_CREATE_BUCKET=true"
echo "${prefix}QDRANT_URL=http://127.0.0.1:$KG_QDRANT_PORT"
