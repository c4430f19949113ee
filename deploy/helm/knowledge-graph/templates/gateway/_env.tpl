{{/* The gateway's own env (beyond PORT and the shared ConfigMap): it has no database. */}}
{{- define "kg.gateway.env" -}}
{{ include "kg.internalKeyEnv" (dict "root" .root "component" "gateway" "hook" .hook) }}
{{ include "kg.redisEnv" . }}
- name: PEER_TIMEOUT_MS
  value: {{ .root.Values.gateway.peerTimeoutMs | int64 | quote }}
{{- end }}
