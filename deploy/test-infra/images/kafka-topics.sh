#!/bin/bash
# Kafka's TopicCommand in localhost/kg-kafka, e.g.
#   kubectl -n kg-infra exec kafka-0 -- kafka-topics --bootstrap-server localhost:9092 --list
exec java -Dlog4j2.configurationFile=/opt/kafka/log4j2-tools.properties -cp "/opt/kafka/libs/*" \
  org.apache.kafka.tools.TopicCommand "$@"
