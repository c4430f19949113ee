#!/usr/bin/env bash
# A single-node Kafka (KRaft, broker+controller in one JVM) from Maven Central jars, run with
# `java`: broker on 127.0.0.1:$KG_KAFKA_PORT, controller on 127.0.0.1:$KG_KAFKA_CONTROLLER_PORT,
# config/data/pid under $KG_INFRA_DIR/kafka (data survives stop/start), log in
# $KG_INFRA_DIR/logs/kafka.log. Jars: $KG_CACHE_DIR/kafka-<version>/libs (copied once by Maven).
# Usage: kafka.sh start|stop|status   (idempotent: start when running is a no-op)
#        kafka.sh topics ARGS...        (Kafka's TopicCommand against this broker, e.g. --list)
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
POM="$INFRA_SCRIPTS/kafka/pom.xml"
VERSION=$(sed -n 's:.*<kafka.version>\(.*\)</kafka.version>.*:\1:p' "$POM")
LIBS="$KG_CACHE_DIR/kafka-$VERSION/libs"
DIR="$KG_INFRA_DIR/kafka"
DATA="$DIR/data"
PIDFILE="$DIR/kafka.pid"
LOGFILE="$KG_LOG_DIR/kafka.log"  # the broker's log4j2 log
OUTFILE="$KG_LOG_DIR/kafka.out"  # the JVM's own stdout/stderr (crashes before logging starts)
START_TIMEOUT="${KG_KAFKA_START_TIMEOUT:-120}"

# Prints the pid of our broker when it is alive (and really is a Kafka JVM).
kafka_pid() {
  local pid
  pid=$(cat "$PIDFILE" 2>/dev/null || true)
  [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null && tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null \
    | grep -q 'kafka\.Kafka ' && echo "$pid"
}

fetch_jars() { # the folder exists only once complete: Maven copies into a temp dir, then mv
  [ -d "$LIBS" ] && return 0
  command -v mvn >/dev/null 2>&1 || apt_install maven
  log "fetching Kafka $VERSION jars with Maven (once; cached in $LIBS)"
  local tmp="$LIBS.tmp.$$"
  rm -rf "$tmp" && mkdir -p "$(dirname "$LIBS")"
  mvn -q -B -f "$POM" dependency:copy-dependencies -DincludeScope=runtime -DoutputDirectory="$tmp" \
    >"$KG_LOG_DIR/kafka-mvn.log" 2>&1 \
    || { rm -rf "$tmp"; log "Maven could not fetch Kafka $VERSION"; show_log "$KG_LOG_DIR/kafka-mvn.log"; exit 1; }
  mv "$tmp" "$LIBS"
}

configure() { # rewritten on every start, so port overrides apply; data is kept
  mkdir -p "$DATA"
  cat >"$DIR/server.properties" <<PROPS
# Written by scripts/infra/kafka.sh on every start.
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:$KG_KAFKA_CONTROLLER_PORT
listeners=PLAINTEXT://127.0.0.1:$KG_KAFKA_PORT,CONTROLLER://127.0.0.1:$KG_KAFKA_CONTROLLER_PORT
advertised.listeners=PLAINTEXT://127.0.0.1:$KG_KAFKA_PORT
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
  cat >"$DIR/log4j2.properties" <<PROPS
# Written by scripts/infra/kafka.sh: warnings and errors to $LOGFILE, plus the start line
# ("Kafka Server started") that kafka.sh waits for.
status = warn
appender.file.type = File
appender.file.name = file
appender.file.fileName = $LOGFILE
appender.file.layout.type = PatternLayout
appender.file.layout.pattern = [%d] %p %m (%c)%n
rootLogger.level = WARN
rootLogger.appenderRef.file.ref = file
logger.started.name = kafka.server.KafkaRaftServer
logger.started.level = INFO
PROPS
  printf '%s\n' 'status = warn' 'appender.err.type = Console' 'appender.err.name = err' \
    'appender.err.target = SYSTEM_ERR' 'appender.err.layout.type = PatternLayout' \
    'appender.err.layout.pattern = %p %m%n' 'rootLogger.level = ERROR' \
    'rootLogger.appenderRef.err.ref = err' >"$DIR/log4j2-tools.properties"
  local id_file="$DIR/cluster-id" cluster_id
  if [ ! -s "$id_file" ] && [ -f "$DATA/meta.properties" ]; then # formatted before the id was kept
    sed -n 's/^cluster\.id=//p' "$DATA/meta.properties" >"$id_file"
  fi
  if [ ! -s "$id_file" ]; then
    cluster_id=$(java -cp "$LIBS/*" kafka.tools.StorageTool random-uuid 2>"$KG_LOG_DIR/kafka-format.log" | tail -n 1)
    [ -n "$cluster_id" ] || { log "StorageTool random-uuid failed"; show_log "$KG_LOG_DIR/kafka-format.log"; exit 1; }
    echo "$cluster_id" >"$id_file"
  fi
  if [ ! -f "$DATA/meta.properties" ]; then
    java -cp "$LIBS/*" kafka.tools.StorageTool format \
      -t "$(cat "$id_file")" -c "$DIR/server.properties" >"$KG_LOG_DIR/kafka-format.log" 2>&1 \
      || { log "formatting Kafka storage failed"; show_log "$KG_LOG_DIR/kafka-format.log"; exit 1; }
  fi
}

# wait_ready PID: the broker's port accepts connections and its log says it has started
# (which in KRaft happens once the broker is unfenced, i.e. can serve metadata and produce).
wait_ready() {
  local pid=$1 deadline=$((SECONDS + START_TIMEOUT))
  until port_open "$KG_KAFKA_PORT" && grep -q 'Kafka Server started' "$LOGFILE" 2>/dev/null; do
    if ! kill -0 "$pid" 2>/dev/null; then
      log "kafka (pid $pid) exited during start-up"
      show_log "$OUTFILE" 20; show_log "$LOGFILE"
      rm -f "$PIDFILE"; exit 1
    fi
    if [ "$SECONDS" -ge "$deadline" ]; then
      log "kafka not ready within ${START_TIMEOUT}s; stopping it"
      show_log "$OUTFILE" 20; show_log "$LOGFILE"
      stop_pid "$pid"; exit 1
    fi
    sleep 0.25
  done
}

stop_pid() { # SIGTERM (controlled shutdown), SIGKILL after 30 s
  local pid=$1
  kill "$pid" 2>/dev/null || true
  for _ in $(seq 1 300); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  if kill -0 "$pid" 2>/dev/null; then
    log "kafka (pid $pid) still running 30s after SIGTERM: SIGKILL"
    kill -9 "$pid" 2>/dev/null || true
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  fi
  rm -f "$PIDFILE"
}

cmd=${1:-}
case "$cmd" in
  start)
    command -v java >/dev/null 2>&1 || apt_install openjdk-17-jre-headless
    with_lock kafka
    fetch_jars
    mkdir -p "$DIR"
    pid=$(kafka_pid || true)
    if [ -n "$pid" ]; then
      wait_for_port "$KG_KAFKA_PORT" "$START_TIMEOUT" "$LOGFILE" kafka "$pid"
      exit 0
    fi
    for port in "$KG_KAFKA_PORT" "$KG_KAFKA_CONTROLLER_PORT"; do
      if port_open "$port"; then die "port $port is taken by another process (no live kafka in $PIDFILE)"; fi
    done
    configure
    if [ -f "$LOGFILE" ]; then mv -f "$LOGFILE" "$KG_LOG_DIR/kafka.prev.log"; fi
    echo "---- $(date -Is) start" >>"$OUTFILE"
    rm -f "$PIDFILE"
    # setsid: own session, so a Ctrl-C or hang-up of the caller does not reach the broker.
    # shellcheck disable=SC2016
    setsid bash -c 'echo $$ >"$1"; shift; exec "$@"' _ "$PIDFILE" \
      java -Xms256m -Xmx512m -XX:+UseG1GC -XX:MaxGCPauseMillis=20 -XX:+ExitOnOutOfMemoryError \
      -Djava.awt.headless=true -Dlog4j2.configurationFile="$DIR/log4j2.properties" \
      -cp "$LIBS/*" kafka.Kafka "$DIR/server.properties" </dev/null >>"$OUTFILE" 2>&1 9>&- &
    for _ in $(seq 1 50); do [ -s "$PIDFILE" ] && break; sleep 0.1; done
    [ -s "$PIDFILE" ] || { log "kafka did not start (no pid)"; show_log "$OUTFILE" 20; exit 1; }
    wait_ready "$(cat "$PIDFILE")"
    ;;
  stop)
    with_lock kafka
    pid=$(kafka_pid || true)
    if [ -n "$pid" ]; then stop_pid "$pid"; else rm -f "$PIDFILE"; fi
    ;;
  status)
    pid=$(kafka_pid || true)
    if [ -n "$pid" ] && port_open "$KG_KAFKA_PORT"; then
      echo "kafka: up (127.0.0.1:$KG_KAFKA_PORT, pid $pid, Kafka $VERSION)"
    else
      echo "kafka: down"; exit 1
    fi
    ;;
  topics)
    [ -d "$LIBS" ] || die "no Kafka jars yet: run kafka.sh start first"
    shift
    exec java -Dlog4j2.configurationFile="$DIR/log4j2-tools.properties" -cp "$LIBS/*" \
      org.apache.kafka.tools.TopicCommand --bootstrap-server "127.0.0.1:$KG_KAFKA_PORT" "$@"
    ;;
  *) echo "usage: $0 start|stop|status|topics ARGS..." >&2; exit 2 ;;
esac
