{{/* The auth service's own env: the only holder of the signing key, the pepper and SMTP credentials (KAFKA_BROKERS, for api_key.revoked, comes from the shared ConfigMap). */}}
{{- define "kg.auth.env" -}}
{{ include "kg.secretEnv" (dict "root" .root "key" "DATABASE_URL" "hook" .hook) }}
{{ include "kg.internalKeyEnv" (dict "root" .root "component" "auth" "hook" .hook) }}
{{ include "kg.secretEnv" (dict "root" .root "key" "AUTH_SIGNING_KEY" "hook" .hook) }}
{{ include "kg.secretEnv" (dict "root" .root "key" "API_KEY_PEPPER" "hook" .hook) }}
{{ include "kg.secretEnv" (dict "root" .root "key" "SMTP_URL" "hook" .hook) }}
{{- with .root.Values.auth.oidc.issuer }}
{{- /* OpenID Connect sign-in: the issuer and client id are plain values, the client secret a Secret key. */}}
- name: OIDC_ISSUER
  value: {{ . | quote }}
- name: OIDC_CLIENT_ID
  value: {{ $.root.Values.auth.oidc.clientId | quote }}
{{ include "kg.secretEnv" (dict "root" $.root "key" "OIDC_CLIENT_SECRET" "hook" $.hook) }}
{{- end }}
{{- include "kg.kafkaEnv" . }}
{{- end }}
