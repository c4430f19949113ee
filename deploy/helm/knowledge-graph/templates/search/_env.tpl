{{/* The search service's own env (KAFKA_BROKERS comes from the shared ConfigMap). */}}
{{- define "kg.search.env" -}}
{{- include "kg.checkVectors" .root }}
{{ include "kg.secretEnv" (dict "root" .root "key" "DATABASE_URL" "hook" .hook) }}
{{- include "kg.kafkaEnv" . }}
{{ include "kg.internalKeyEnv" (dict "root" .root "component" "search" "hook" .hook) }}
{{- if eq .root.Values.search.vectors "qdrant" }}
{{- /* Qdrant: the chart's StatefulSet or an external server, shared by every replica. */}}
- name: QDRANT_URL
  value: {{ include "kg.qdrantUrl" .root | quote }}
{{- if ne (include "kg.qdrantKey" .root) "none" }}
{{ include "kg.secretEnv" (dict "root" .root "key" "QDRANT_API_KEY" "hook" .hook) }}
{{- end }}
{{- else }}
{{- /* search.vectors=in-process (one replica, kg.checkVectors): the index in the pod's
writable /tmp (the root filesystem is read-only); it lives as long as the pod. */}}
- name: VECTORS_DIR
  value: /tmp/search-vectors
{{- end }}
{{- /* The sentence-embedding provider (README, "Search embeddings settings"). */}}
{{- $e := .root.Values.search.embeddings }}
- name: EMBEDDINGS_PROVIDER
  value: {{ $e.provider | quote }}
{{- with $e.modelDir }}
- name: EMBEDDINGS_MODEL_DIR
  value: {{ . | quote }}
{{- end }}
{{- if eq $e.provider "openai" }}
- name: EMBEDDINGS_BASE_URL
  value: {{ required "search.embeddings.baseUrl is required with provider openai" $e.baseUrl | quote }}
- name: EMBEDDINGS_MODEL
  value: {{ required "search.embeddings.model is required with provider openai" $e.model | quote }}
{{- with $e.apiKeySecret.name }}
- name: EMBEDDINGS_API_KEY
  valueFrom:
    secretKeyRef:
      name: {{ . }}
      key: {{ $e.apiKeySecret.key }}
{{- end }}
{{- end }}
{{- end }}
