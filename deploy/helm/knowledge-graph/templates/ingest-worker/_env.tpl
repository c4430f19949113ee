{{/* The ingest-worker service's own env: the base of every service (database and its own internal signing key). */}}
{{- define "kg.ingest-worker.env" -}}
{{ include "kg.secretEnv" (dict "root" .root "key" "DATABASE_URL" "hook" .hook) }}
{{ include "kg.internalKeyEnv" (dict "root" .root "component" "ingest-worker" "hook" .hook) }}
{{- end }}
