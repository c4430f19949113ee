{{/* The ingest-worker service's own env: its internal signing key, the Kafka credentials (capture.queued travels on
Kafka), Redis (the fetch stage's per-host limits, shared by the replicas) and the pipeline settings
(ingestWorker.pipeline). No database: runs and leases live in the captures service. */}}
{{- define "kg.ingest-worker.env" -}}
{{- $p := .root.Values.ingestWorker.pipeline }}
{{- include "kg.kafkaEnv" . }}
{{ include "kg.internalKeyEnv" (dict "root" .root "component" "ingest-worker" "hook" .hook) }}
{{ include "kg.redisEnv" . }}
- name: INGEST_CONCURRENCY
  value: {{ $p.concurrency | int64 | quote }}
- name: INGEST_QUEUE_LIMIT
  value: {{ $p.queueLimit | int64 | quote }}
- name: INGEST_STAGE_TIMEOUT_MS
  value: {{ $p.stageTimeoutMs | int64 | quote }}
- name: INGEST_STAGE_ATTEMPTS
  value: {{ $p.stageAttempts | int64 | quote }}
- name: INGEST_MAX_CLAIMS
  value: {{ $p.maxClaims | int64 | quote }}
- name: INGEST_LEASE_MS
  value: {{ $p.leaseMs | int64 | quote }}
- name: INGEST_SWEEP_INTERVAL_MS
  value: {{ $p.sweepIntervalMs | int64 | quote }}
- name: INGEST_SWEEP_AFTER_MS
  value: {{ $p.sweepAfterMs | int64 | quote }}
- name: FETCH_TIMEOUT_MS
  value: {{ $p.fetch.timeoutMs | int64 | quote }}
- name: FETCH_MAX_BYTES
  value: {{ $p.fetch.maxBytes | int64 | quote }}
- name: FETCH_MAX_REDIRECTS
  value: {{ $p.fetch.maxRedirects | int64 | quote }}
- name: FETCH_MAX_PER_HOST
  value: {{ $p.fetch.maxPerHost | int64 | quote }}
- name: FETCH_HOST_INTERVAL_MS
  value: {{ $p.fetch.hostIntervalMs | int64 | quote }}
- name: FETCH_ALLOWLIST
  value: {{ join "," $p.fetch.allowlist | quote }}
- name: OCR_ENABLED
  value: {{ ternary "true" "false" $p.ocr.enabled | quote }}
- name: DOCX_MAX_INFLATED_BYTES
  value: {{ $p.docxMaxInflatedBytes | int64 | quote }}
{{- with $p.llm.baseUrl }}
- name: LLM_BASE_URL
  value: {{ . | quote }}
- name: LLM_MODEL
  value: {{ required "ingestWorker.pipeline.llm.model is required with llm.baseUrl" $p.llm.model | quote }}
{{- end }}
{{- with $p.llm.apiKeySecret.name }}
- name: LLM_API_KEY
  valueFrom:
    secretKeyRef:
      name: {{ . }}
      key: {{ $p.llm.apiKeySecret.key }}
{{- end }}
{{- end }}
