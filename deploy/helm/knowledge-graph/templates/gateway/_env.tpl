{{/* The gateway's own env (beyond PORT and the shared ConfigMap): it has no database; it consumes capture and node
events from Kafka for GET /events (a consumer group per replica), so it gets the Kafka credentials. */}}
{{- define "kg.gateway.env" -}}
{{ include "kg.internalKeyEnv" (dict "root" .root "component" "gateway" "hook" .hook) }}
{{ include "kg.redisEnv" . }}
{{- include "kg.kafkaEnv" . }}
- name: PEER_TIMEOUT_MS
  value: {{ .root.Values.gateway.peerTimeoutMs | int64 | quote }}
{{- end }}
