{{/* The search service's own env (KAFKA_BROKERS and QDRANT_URL come from the shared ConfigMap). */}}
{{- define "kg.search.env" -}}
{{ include "kg.secretEnv" (dict "root" .root "key" "DATABASE_URL" "hook" .hook) }}
{{- include "kg.kafkaEnv" . }}
{{ include "kg.internalKeyEnv" (dict "root" .root "component" "search" "hook" .hook) }}
{{- end }}
