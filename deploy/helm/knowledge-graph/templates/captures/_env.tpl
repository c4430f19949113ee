{{/* The captures service's own env: the base of every service (database and its own internal signing key), the
Kafka credentials (capture events leave through its outbox) and the object storage credentials (uploaded files). */}}
{{- define "kg.captures.env" -}}
{{ include "kg.secretEnv" (dict "root" .root "key" "DATABASE_URL" "hook" .hook) }}
{{- include "kg.kafkaEnv" . }}
{{ include "kg.secretEnv" (dict "root" .root "key" "S3_ACCESS_KEY_ID" "hook" .hook) }}
{{ include "kg.secretEnv" (dict "root" .root "key" "S3_SECRET_ACCESS_KEY" "hook" .hook) }}
{{ include "kg.internalKeyEnv" (dict "root" .root "component" "captures" "hook" .hook) }}
{{- end }}
