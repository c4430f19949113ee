#!/bin/bash
# Readiness of localhost/kg-kafka: the broker logged "Kafka Server started" (KRaft: once it
# is unfenced, i.e. serves metadata and produce) and its port accepts connections.
grep -q 'Kafka Server started' /tmp/kafka/state.log 2>/dev/null && exec 3<>"/dev/tcp/127.0.0.1/${KAFKA_LISTENER_PORT:-9092}"
