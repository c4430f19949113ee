#!/usr/bin/env bash
# A single-node Kafka broker in KRaft mode from Maven Central jars, started with `java`.
# Broker on 127.0.0.1:$KG_KAFKA_PORT, controller on $KG_KAFKA_CONTROLLER_PORT, data under
# $KG_INFRA_DIR/kafka (kept across stop/start). Usage: kafka.sh start|stop|status.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
VERSION=$(sed -n 's:.*<kafka.version>\(.*\)</kafka.version>.*:\1:p' "$INFRA_SCRIPTS/kafka/pom.xml")
LIBS="$KG_CACHE_DIR/kafka-$VERSION/libs"
DIR="$KG_INFRA_DIR/kafka"
LOGFILE="$KG_LOG_DIR/kafka.log"
PIDFILE="$DIR/kafka.pid"

fetch_jars() {
  [ -f "$LIBS/.complete" ] && return 0
  log "downloading Kafka $VERSION jars (Maven Central, cached in $LIBS)"
  mkdir -p "$LIBS"
  mvn -q -B -f "$INFRA_SCRIPTS/kafka/pom.xml" dependency:copy-dependencies \
    -DoutputDirectory="$LIBS" -DincludeScope=runtime >"$KG_LOG_DIR/kafka-mvn.log" 2>&1 \
    || { tail -n 30 "$KG_LOG_DIR/kafka-mvn.log" >&2; return 1; }
  touch "$LIBS/.complete"
}

configure() {
  mkdir -p "$DIR/data"
  cat >"$DIR/server.properties" <<PROPS
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:$KG_KAFKA_CONTROLLER_PORT
listeners=PLAINTEXT://127.0.0.1:$KG_KAFKA_PORT,CONTROLLER://127.0.0.1:$KG_KAFKA_CONTROLLER_PORT
advertised.listeners=PLAINTEXT://127.0.0.1:$KG_KAFKA_PORT
controller.listener.names=CONTROLLER
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT
inter.broker.listener.name=PLAINTEXT
log.dirs=$DIR/data
num.partitions=3
auto.create.topics.enable=true
offsets.topic.replication.factor=1
offsets.topic.num.partitions=3
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
default.replication.factor=1
min.insync.replicas=1
group.initial.rebalance.delay.ms=0
log.retention.hours=24
PROPS
  cat >"$DIR/log4j2.properties" <<PROPS
status = warn
appender.file.type = File
appender.file.name = file
appender.file.fileName = $LOGFILE
appender.file.layout.type = PatternLayout
appender.file.layout.pattern = [%d] %p %m (%c)%n
rootLogger.level = INFO
rootLogger.appenderRef.file.ref = file
logger.kafka.name = kafka
logger.kafka.level = WARN
logger.apache.name = org.apache.kafka
logger.apache.level = WARN
PROPS
  if [ ! -f "$DIR/data/meta.properties" ]; then
    local cluster_id
    cluster_id=$(java -cp "$LIBS/*" kafka.tools.StorageTool random-uuid 2>/dev/null | tail -1)
    java -Dlog4j2.configurationFile="$DIR/log4j2.properties" -cp "$LIBS/*" kafka.tools.StorageTool format \
      -t "$cluster_id" -c "$DIR/server.properties" >"$KG_LOG_DIR/kafka-format.log" 2>&1 \
      || { tail -n 30 "$KG_LOG_DIR/kafka-format.log" >&2; return 1; }
  fi
}

running() { [ -f "$PIDFILE" ] && kill -0 "$(cat "$PIDFILE")" 2>/dev/null; }

case "${1:-start}" in
  start)
    command -v java >/dev/null || { log "java is required (JDK 17+)"; exit 1; }
    fetch_jars
    configure
    if running; then
      log "kafka already running on $KG_KAFKA_PORT"
    else
      nohup java -Xms256m -Xmx512m -XX:+UseG1GC -Djava.awt.headless=true \
        -Dlog4j2.configurationFile="$DIR/log4j2.properties" \
        -cp "$LIBS/*" kafka.Kafka "$DIR/server.properties" >>"$KG_LOG_DIR/kafka-stdout.log" 2>&1 &
      echo $! >"$PIDFILE"
    fi
    wait_for_port "$KG_KAFKA_PORT" 90 "$KG_LOG_DIR/kafka-stdout.log" kafka
    log "kafka ready: 127.0.0.1:$KG_KAFKA_PORT"
    ;;
  stop)
    if running; then
      pid=$(cat "$PIDFILE")
      kill "$pid"
      for _ in $(seq 1 300); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
      kill -0 "$pid" 2>/dev/null && kill -9 "$pid"
      rm -f "$PIDFILE"
      log "kafka stopped"
    fi
    ;;
  status)
    running && port_open "$KG_KAFKA_PORT" && echo "kafka: up ($KG_KAFKA_PORT)" || { echo "kafka: down"; exit 1; }
    ;;
  *) echo "usage: $0 start|stop|status" >&2; exit 2 ;;
esac
