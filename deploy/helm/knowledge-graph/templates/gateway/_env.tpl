{{/* The gateway's own env (beyond PORT and the shared ConfigMap): it has no database; it consumes capture and node
events from Kafka for GET /events (a consumer group per replica), so it gets the Kafka credentials. It finds the
Ready graph pods through the graph's headless Service (GRAPH_REPLICAS_DNS; GRAPH_URL while that resolves to none). */}}
{{- define "kg.gateway.env" -}}
{{ include "kg.internalKeyEnv" (dict "root" .root "component" "gateway" "hook" .hook) }}
{{ include "kg.redisEnv" . }}
{{- include "kg.kafkaEnv" . }}
- name: PEER_TIMEOUT_MS
  value: {{ .root.Values.gateway.peerTimeoutMs | int64 | quote }}
- name: GRAPH_REPLICAS_DNS
  value: {{ include "kg.replicasUrl" (dict "root" .root "component" "graph") | quote }}
- name: GRAPH_ROUTING
  value: {{ .root.Values.gateway.graphRouting | quote }}
{{- end }}
