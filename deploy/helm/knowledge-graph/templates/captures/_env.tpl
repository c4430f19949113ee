{{/* The captures service's own env: the base of every service (database and internal-token secret). */}}
{{- define "kg.captures.env" -}}
{{ include "kg.secretEnv" (dict "root" .root "key" "DATABASE_URL" "hook" .hook) }}
{{ include "kg.secretEnv" (dict "root" .root "key" "INTERNAL_TOKEN_SECRET" "hook" .hook) }}
{{- end }}
