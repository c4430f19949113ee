#!/bin/bash
# Entry point of localhost/kg-kafka (scripts/k8s/images-infra.sh): one KRaft node (broker
# and controller in one JVM), configured as scripts/infra/kafka.sh configures its local one,
# except that the broker listens on 0.0.0.0:9092 and advertises KAFKA_ADVERTISED_HOST (the
# Service's DNS name). The data directory (KAFKA_DATA_DIR, the pod's volume) is formatted on
# the first start only, so a pod deleted and created again keeps its topics and offsets.
set -euo pipefail
: "${KAFKA_ADVERTISED_HOST:?KAFKA_ADVERTISED_HOST is not set (e.g. kafka.kg-infra.svc.cluster.local)}"
DATA="${KAFKA_DATA_DIR:-/var/lib/kafka/data}"
PORT="${KAFKA_LISTENER_PORT:-9092}"
CONF=/tmp/kafka # written on every start
LIBS=/opt/kafka/libs
mkdir -p "$CONF" "$DATA"

cat >"$CONF/server.properties" <<PROPS
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:9093
listeners=PLAINTEXT://0.0.0.0:$PORT,CONTROLLER://127.0.0.1:9093
advertised.listeners=PLAINTEXT://$KAFKA_ADVERTISED_HOST:$PORT
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT
log.dirs=$DATA
num.partitions=3
auto.create.topics.enable=true
default.replication.factor=1
min.insync.replicas=1
offsets.topic.replication.factor=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
group.initial.rebalance.delay.ms=0
log.retention.hours=24
PROPS
# Warnings to the container's log; the start line also to $CONF/state.log, which the
# readiness probe (kafka-ready) looks for.
cat >"$CONF/log4j2.properties" <<PROPS
status = warn
appender.out.type = Console
appender.out.name = out
appender.out.layout.type = PatternLayout
appender.out.layout.pattern = [%d] %p %m (%c)%n
appender.state.type = File
appender.state.name = state
appender.state.fileName = $CONF/state.log
appender.state.layout.type = PatternLayout
appender.state.layout.pattern = [%d] %p %m (%c)%n
rootLogger.level = WARN
rootLogger.appenderRef.out.ref = out
logger.started.name = kafka.server.KafkaRaftServer
logger.started.level = INFO
logger.started.appenderRef.state.ref = state
PROPS

if [[ ! -f "$DATA/meta.properties" ]]; then
  id=$(java -Dlog4j2.configurationFile=/opt/kafka/log4j2-tools.properties -cp "$LIBS/*" \
    kafka.tools.StorageTool random-uuid | tail -n 1)
  echo "kg-kafka: formatting $DATA (cluster id $id)" >&2
  java -Dlog4j2.configurationFile=/opt/kafka/log4j2-tools.properties -cp "$LIBS/*" \
    kafka.tools.StorageTool format -t "$id" -c "$CONF/server.properties" >&2
fi

# shellcheck disable=SC2086 # KAFKA_HEAP_OPTS is a list of JVM options
exec java ${KAFKA_HEAP_OPTS:--Xms256m -Xmx512m} -XX:+UseG1GC -XX:MaxGCPauseMillis=20 \
  -XX:+ExitOnOutOfMemoryError -Djava.awt.headless=true -Dlog4j2.configurationFile="$CONF/log4j2.properties" \
  -cp "$LIBS/*" kafka.Kafka "$CONF/server.properties"
