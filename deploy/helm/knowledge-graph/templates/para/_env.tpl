{{/* The para service's own env: the base of every service (database and its own internal signing key), plus the Kafka
credentials (reclassification jobs travel on Kafka) and Redis (an item's change draws its tenant's new graph-view token). */}}
{{- define "kg.para.env" -}}
{{ include "kg.secretEnv" (dict "root" .root "key" "DATABASE_URL" "hook" .hook) }}
{{- include "kg.kafkaEnv" . }}
{{ include "kg.internalKeyEnv" (dict "root" .root "component" "para" "hook" .hook) }}
{{ include "kg.redisEnv" . }}
{{- end }}
