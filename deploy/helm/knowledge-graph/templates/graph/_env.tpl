{{/* The graph service's own env (PARA_URL and KAFKA_BROKERS come from the shared ConfigMap). */}}
{{- define "kg.graph.env" -}}
{{ include "kg.secretEnv" (dict "root" .root "key" "DATABASE_URL" "hook" .hook) }}
{{ include "kg.internalKeyEnv" (dict "root" .root "component" "graph" "hook" .hook) }}
{{ include "kg.redisEnv" . }}
{{- include "kg.kafkaEnv" . }}
- name: PEER_TIMEOUT_MS
  value: {{ .root.Values.graph.peerTimeoutMs | int64 | quote }}
{{- end }}
