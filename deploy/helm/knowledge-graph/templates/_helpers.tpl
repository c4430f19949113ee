{{/*
Names and labels (after the `helm create` scaffold). Component templates are called with
a context dict: (dict "root" $ "component" "<name>"), where <name> is the service name
(gateway, auth, graph, para, captures, search, ingest-worker).
*/}}

{{/* Chart name. */}}
{{- define "kg.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Fully qualified app name; the prefix of every resource of the release. */}}
{{- define "kg.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{/* Chart name and version, for the helm.sh/chart label. */}}
{{- define "kg.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Labels of every resource. */}}
{{- define "kg.labels" -}}
helm.sh/chart: {{ include "kg.chart" . }}
{{ include "kg.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: {{ include "kg.name" . }}
{{- end }}

{{/* Labels that select the pods of this release (all components). */}}
{{- define "kg.selectorLabels" -}}
app.kubernetes.io/name: {{ include "kg.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{/* Labels of one component's resources. */}}
{{- define "kg.componentLabels" -}}
{{ include "kg.labels" .root }}
app.kubernetes.io/component: {{ .component }}
{{- end }}

{{/* Labels that select one component's pods. */}}
{{- define "kg.componentSelectorLabels" -}}
{{ include "kg.selectorLabels" .root }}
app.kubernetes.io/component: {{ .component }}
{{- end }}

{{/* Resource name of a component: <fullname>-<component>. */}}
{{- define "kg.componentName" -}}
{{- printf "%s-%s" (include "kg.fullname" .root) .component | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* The values block of a component (ingest-worker lives under ingestWorker). */}}
{{- define "kg.componentValues" -}}
{{- $key := .component | replace "-" "_" | camelcase | untitle }}
{{- toYaml (index .root.Values $key) }}
{{- end }}

{{/* Port each service listens on (its default PORT; the Service exposes the same). */}}
{{- define "kg.port" -}}
{{- $ports := dict "gateway" 8080 "auth" 3001 "graph" 3002 "para" 3004 "captures" 3005 "search" 3006 "ingest-worker" 3007 }}
{{- index $ports .component }}
{{- end }}

{{/* In-cluster base URL of a component, e.g. http://kg-knowledge-graph-auth:3001. */}}
{{- define "kg.url" -}}
{{- printf "http://%s:%s" (include "kg.componentName" .) (include "kg.port" .) }}
{{- end }}

{{/*
Headless Service of a component's Ready pods: <fullname>-<component>-replicas (the component
name cut so the suffix always fits in 63 characters and never collides with its Service).
*/}}
{{- define "kg.replicasName" -}}
{{- printf "%s-replicas" (include "kg.componentName" . | trunc 54 | trimSuffix "-") }}
{{- end }}

{{/* URL whose host name resolves to every Ready pod of a component, e.g. http://kg-knowledge-graph-graph-replicas:3002. */}}
{{- define "kg.replicasUrl" -}}
{{- printf "http://%s:%s" (include "kg.replicasName" .) (include "kg.port" .) }}
{{- end }}

{{/* The one image of every component: repository:tag (tag defaults to appVersion), or @digest. */}}
{{- define "kg.image" -}}
{{- if .Values.image.digest }}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest }}
{{- else }}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) }}
{{- end }}
{{- end }}

{{/* Entry point of a service inside the image (the image's ENTRYPOINT is node --import tsx). */}}
{{- define "kg.entry" -}}
{{- printf "services/%s/src/main.ts" .component }}
{{- end }}

{{/* Name of the ConfigMap with the shared non-secret env. */}}
{{- define "kg.configMapName" -}}
{{- printf "%s-config" (include "kg.fullname" .) }}
{{- end }}

{{/*
Secret env. Call with (dict "root" $ "key" "<ENV NAME>" "hook" <bool>). The migrations hook
Job runs before the release's own Secrets exist, so with hook=true (DATABASE_URL, the only
secret it reads) a chart-managed value comes from the hook-only Secret <fullname>-migrations.
*/}}
{{- define "kg.secretEnv" -}}
{{- $v := .root.Values }}
{{- $fullname := include "kg.fullname" .root }}
{{- $name := "" }}
{{- $key := .key }}
{{- if and (eq .key "DATABASE_URL") $v.postgres.existingSecret }}
  {{- $name = $v.postgres.existingSecret }}
  {{- $key = $v.postgres.existingSecretKey }}
{{- else if and (eq .key "REDIS_URL") $v.redis.existingSecret }}
  {{- $name = $v.redis.existingSecret }}
  {{- $key = $v.redis.existingSecretKey }}
{{- else if and (eq .key "REDIS_PASSWORD") $v.redis.existingSecret }}
  {{- $name = $v.redis.existingSecret }}
  {{- $key = $v.redis.existingSecretPasswordKey }}
{{- else if and (hasPrefix "KAFKA_SASL_" .key) $v.kafka.sasl.existingSecret }}
  {{- $name = $v.kafka.sasl.existingSecret }}
{{- else if and (hasPrefix "S3_" .key) $v.objectStorage.existingSecret }}
  {{- $name = $v.objectStorage.existingSecret }}
{{- else if and (eq .key "QDRANT_API_KEY") $v.qdrant.existingSecret }}
  {{- $name = $v.qdrant.existingSecret }}
  {{- $key = $v.qdrant.existingSecretKey }}
{{- else if and (not (has .key (include "kg.connectionKeys" .root | fromYamlArray))) $v.secrets.existingSecret }}
  {{- $name = $v.secrets.existingSecret }}
{{- else if .hook }}
  {{- $name = printf "%s-migrations" $fullname }}
{{- else if has .key (include "kg.connectionKeys" .root | fromYamlArray) }}
  {{- $name = printf "%s-connections" $fullname }}
{{- else }}
  {{- $name = $fullname }}
{{- end -}}
- name: {{ .key }}
  valueFrom:
    secretKeyRef:
      name: {{ $name }}
      key: {{ $key }}
      {{- if eq .key "SMTP_URL" }}
      optional: true
      {{- end }}
{{- end }}

{{/* Data of the chart-managed app Secret (when secrets.existingSecret is empty). */}}
{{- define "kg.secretData" -}}
API_KEY_PEPPER: {{ .Values.secrets.apiKeyPepper | b64enc | quote }}
AUTH_SIGNING_KEY: {{ .Values.secrets.authSigningKey | b64enc | quote }}
{{- with .Values.secrets.smtpUrl }}
SMTP_URL: {{ . | b64enc | quote }}
{{- end }}
{{- with .Values.secrets.oidcClientSecret }}
OIDC_CLIENT_SECRET: {{ . | b64enc | quote }}
{{- end }}
{{- end }}

{{/*
A service's own internal signing key (INTERNAL_SIGNING_KEY): its private Ed25519 JWK, from
its own Secret and no other service's. Call with (dict "root" $ "component" "<service>"
"hook" <bool>). internalKeys.existingSecrets.<service> names an existing Secret (key
INTERNAL_SIGNING_KEY); otherwise the chart's <fullname>-<service>-internal-key. The
migrations hook Job gets no signing key (`migrate` does not read it).
*/}}
{{- define "kg.internalKeyEnv" -}}
{{- $existing := index (.root.Values.internalKeys.existingSecrets | default dict) .component }}
- name: INTERNAL_SIGNING_KEY
  valueFrom:
    secretKeyRef:
      {{- if $existing }}
      name: {{ $existing }}
      key: INTERNAL_SIGNING_KEY
      {{- else }}
      name: {{ include "kg.componentName" . }}-internal-key
      key: INTERNAL_SIGNING_KEY
      {{- end }}
{{- end }}

{{/* The chart-managed private key of one service (empty when it comes from an existing Secret). */}}
{{- define "kg.internalKeyValue" -}}
{{- if not (index (.root.Values.internalKeys.existingSecrets | default dict) .component) }}
{{- index (.root.Values.internalKeys.signingKeys | default dict) .component | default "" }}
{{- end }}
{{- end }}

{{/* Keys of the connections Secret: URLs and credentials of PostgreSQL, Redis, Kafka, object storage and Qdrant. */}}
{{- define "kg.connectionKeys" -}}
{{- toYaml (list "DATABASE_URL" "REDIS_URL" "REDIS_PASSWORD" "KAFKA_SASL_USERNAME" "KAFKA_SASL_PASSWORD" "S3_ACCESS_KEY_ID" "S3_SECRET_ACCESS_KEY" "QDRANT_API_KEY") }}
{{- end }}

{{/* Data of the chart-managed connections Secret (URLs may carry credentials). */}}
{{- define "kg.connectionsData" -}}
{{- if not .Values.postgres.existingSecret }}
DATABASE_URL: {{ .Values.postgres.url | b64enc | quote }}
{{- end }}
{{- if not .Values.redis.existingSecret }}
REDIS_URL: {{ .Values.redis.url | b64enc | quote }}
{{- with .Values.redis.password }}
REDIS_PASSWORD: {{ . | b64enc | quote }}
{{- end }}
{{- end }}
{{- if and .Values.kafka.sasl.mechanism (not .Values.kafka.sasl.existingSecret) }}
KAFKA_SASL_USERNAME: {{ .Values.kafka.sasl.username | b64enc | quote }}
KAFKA_SASL_PASSWORD: {{ .Values.kafka.sasl.password | b64enc | quote }}
{{- end }}
{{- if not .Values.objectStorage.existingSecret }}
S3_ACCESS_KEY_ID: {{ .Values.objectStorage.accessKeyId | b64enc | quote }}
S3_SECRET_ACCESS_KEY: {{ .Values.objectStorage.secretAccessKey | b64enc | quote }}
{{- end }}
{{- if eq (include "kg.qdrantKey" .) "chart" }}
QDRANT_API_KEY: {{ .Values.qdrant.apiKey | b64enc | quote }}
{{- end }}
{{- end }}

{{/*
Vectors of the search service (search.vectors): "qdrant" with the chart's StatefulSet
(qdrant.enabled) or an external qdrant.url, or "in-process" (one replica only). Each helper
below prints a word the templates compare with eq.
*/}}
{{/* "true" when the chart runs its own Qdrant StatefulSet. */}}
{{- define "kg.qdrantOwn" -}}
{{- and (eq .Values.search.vectors "qdrant") .Values.qdrant.enabled }}
{{- end }}

{{/* Where the search service's Qdrant API key comes from: chart, existing, or none (no key sent). */}}
{{- define "kg.qdrantKey" -}}
{{- if ne .Values.search.vectors "qdrant" }}none
{{- else if .Values.qdrant.existingSecret }}existing
{{- else if or .Values.qdrant.enabled .Values.qdrant.apiKey }}chart
{{- else }}none
{{- end }}
{{- end }}

{{/* The image of the chart's Qdrant: repository:tag, or @digest. */}}
{{- define "kg.qdrantImage" -}}
{{- $i := .Values.qdrant.image }}
{{- if $i.digest }}
{{- printf "%s@%s" $i.repository $i.digest }}
{{- else }}
{{- printf "%s:%s" $i.repository $i.tag }}
{{- end }}
{{- end }}

{{/* The Secret key of the Qdrant API key (the chart's Qdrant and the search service read the same one). */}}
{{- define "kg.qdrantKeyRef" -}}
{{- if .Values.qdrant.existingSecret }}
name: {{ .Values.qdrant.existingSecret }}
key: {{ .Values.qdrant.existingSecretKey }}
{{- else }}
name: {{ include "kg.fullname" . }}-connections
key: QDRANT_API_KEY
{{- end }}
{{- end }}

{{/* QDRANT_URL of the search service: the chart's Qdrant Service, or qdrant.url. */}}
{{- define "kg.qdrantUrl" -}}
{{- if .Values.qdrant.enabled }}
{{- printf "http://%s:6333" (include "kg.componentName" (dict "root" . "component" "qdrant")) }}
{{- else }}
{{- required "qdrant.url is required with qdrant.enabled=false (an external Qdrant), or set search.vectors=in-process for a single search replica" .Values.qdrant.url }}
{{- end }}
{{- end }}

{{/*
The in-process vector index lives in one pod's /tmp: two replicas would answer from two
different indexes, so the chart refuses it unless search runs exactly one replica.
*/}}
{{- define "kg.checkVectors" -}}
{{- $s := .Values.search }}
{{- if eq $s.vectors "in-process" }}
{{- $most := ternary $s.autoscaling.maxReplicas $s.replicas $s.autoscaling.enabled | int }}
{{- if gt $most 1 }}
{{- fail (printf "search.vectors=in-process keeps the vector index in each search pod's /tmp, so %d search replicas would answer from different indexes: set search.replicas to 1 (and search.autoscaling.enabled=false or maxReplicas 1), or use Qdrant (search.vectors=qdrant, the default)" $most) }}
{{- end }}
{{- end }}
{{- end }}

{{/* Redis env of a service that uses it (gateway, graph): the URL and, when configured, the password. */}}
{{- define "kg.redisEnv" -}}
{{ include "kg.secretEnv" (dict "root" .root "key" "REDIS_URL" "hook" .hook) }}
{{- $r := .root.Values.redis }}
{{- if or (and $r.existingSecret $r.existingSecretPasswordKey) (and (not $r.existingSecret) $r.password) }}
{{ include "kg.secretEnv" (dict "root" .root "key" "REDIS_PASSWORD" "hook" .hook) }}
{{- end }}
{{- end }}

{{/* Kafka credentials of a service that uses Kafka (graph, search), when SASL is on. */}}
{{- define "kg.kafkaEnv" -}}
{{- if .root.Values.kafka.sasl.mechanism }}
{{ include "kg.secretEnv" (dict "root" .root "key" "KAFKA_SASL_USERNAME" "hook" .hook) }}
{{ include "kg.secretEnv" (dict "root" .root "key" "KAFKA_SASL_PASSWORD" "hook" .hook) }}
{{- end }}
{{- end }}

{{/* The gateway's TRUST_PROXY_HOPS: the chart's Ingress is one proxy hop (or more) in front of it. */}}
{{- define "kg.trustProxyHops" -}}
{{- if .Values.ingress.enabled }}
{{- .Values.ingress.trustedProxyHops | int64 }}
{{- else }}
{{- .Values.gateway.http.trustProxyHops | int64 }}
{{- end }}
{{- end }}

{{/* Shared non-secret env (the ConfigMap's data; the hook Job gets its database timeouts and LOG_LEVEL inline). */}}
{{- define "kg.configData" -}}
HOST: "0.0.0.0"
LOG_LEVEL: {{ .Values.config.logLevel | quote }}
INTERNAL_PUBLIC_KEYS: {{ .Values.internalKeys.publicKeys | default dict | toJson | quote }}
KAFKA_BROKERS: {{ .Values.kafka.brokers | quote }}
KAFKA_REPLICATION_FACTOR: {{ .Values.kafka.replicationFactor | int64 | quote }}
KAFKA_SSL: {{ ternary "true" "false" (or .Values.kafka.tls.enabled (not (empty .Values.kafka.tls.ca))) | quote }}
{{- with .Values.kafka.tls.ca }}
KAFKA_SSL_CA: {{ . | quote }}
{{- end }}
{{- with .Values.kafka.sasl.mechanism }}
KAFKA_SASL_MECHANISM: {{ . | quote }}
{{- end }}
DATABASE_STATEMENT_TIMEOUT_MS: {{ .Values.postgres.statementTimeoutMs | int64 | quote }}
DATABASE_CONNECT_TIMEOUT_MS: {{ .Values.postgres.connectTimeoutMs | int64 | quote }}
METRICS_PORT: {{ .Values.metrics.port | int64 | quote }}
SHUTDOWN_DRAIN_MS: {{ mul .Values.config.shutdownDrainSeconds 1000 | int64 | quote }}
BLOB_STORE: "s3"
{{- with .Values.objectStorage.endpoint }}
S3_ENDPOINT: {{ . | quote }}
{{- end }}
S3_REGION: {{ .Values.objectStorage.region | quote }}
S3_BUCKET: {{ .Values.objectStorage.bucket | quote }}
S3_FORCE_PATH_STYLE: {{ ternary "true" "false" .Values.objectStorage.forcePathStyle | quote }}
S3_CREATE_BUCKET: {{ ternary "true" "false" .Values.objectStorage.createBucket | quote }}
CAPTURE_LEASE_MS: {{ .Values.captures.leaseMs | int64 | quote }}
{{- with .Values.captures.webhooks }}
WEBHOOK_ALLOWLIST: {{ join "," .allowlist | quote }}
WEBHOOK_TIMEOUT_MS: {{ .timeoutMs | int64 | quote }}
WEBHOOK_RETRY_WINDOW_MS: {{ .retryWindowMs | int64 | quote }}
WEBHOOK_FAILURE_WINDOW_MS: {{ .failureWindowMs | int64 | quote }}
WEBHOOK_LEASE_MS: {{ .leaseMs | int64 | quote }}
WEBHOOK_MAX_ENDPOINTS: {{ .maxEndpoints | int64 | quote }}
{{- end }}
{{- with .Values.captures.imports }}
IMPORT_MAX_BYTES: {{ .maxBytes | int64 | quote }}
IMPORT_MAX_ACTIVE: {{ .maxActive | int64 | quote }}
IMPORT_MAX_IN_FLIGHT: {{ .maxInFlight | int64 | quote }}
IMPORT_BATCH_SIZE: {{ .batchSize | int64 | quote }}
IMPORT_LEASE_MS: {{ .leaseMs | int64 | quote }}
{{- end }}
{{- range $peer := list "auth" "graph" "para" "captures" "search" }}
{{ $peer | upper }}_URL: {{ include "kg.url" (dict "root" $ "component" $peer) | quote }}
{{- end }}
PUBLIC_URL: {{ .Values.config.publicUrl | quote }}
MAIL_TRANSPORT: {{ .Values.auth.mail.transport | quote }}
MAIL_FROM: {{ .Values.auth.mail.from | quote }}
{{- if eq .Values.auth.mail.transport "outbox" }}
OUTBOX_DIR: "/tmp/outbox"
{{- end }}
CORS_ORIGINS: {{ join "," .Values.gateway.http.corsOrigins | quote }}
JSON_BODY_LIMIT_BYTES: {{ .Values.gateway.http.jsonBodyLimitBytes | int64 | quote }}
UPLOAD_MAX_BYTES: {{ .Values.gateway.http.uploadMaxBytes | int64 | quote }}
MAGIC_LINK_PER_EMAIL_PER_HOUR: {{ .Values.gateway.http.magicLinkPerEmailPerHour | int64 | quote }}
MAGIC_LINK_PER_IP_PER_HOUR: {{ .Values.gateway.http.magicLinkPerIpPerHour | int64 | quote }}
GRAPH_RATE_LIMIT_PER_MINUTE: {{ .Values.gateway.http.graphRateLimitPerMinute | int64 | quote }}
GRAPH_RATE_LIMIT_PER_CREDENTIAL_PER_MINUTE: {{ .Values.gateway.http.graphRateLimitPerCredentialPerMinute | int64 | quote }}
SEARCH_RATE_LIMIT_PER_MINUTE: {{ .Values.gateway.http.searchRateLimitPerMinute | int64 | quote }}
SEARCH_RATE_LIMIT_PER_CREDENTIAL_PER_MINUTE: {{ .Values.gateway.http.searchRateLimitPerCredentialPerMinute | int64 | quote }}
CAPTURE_RATE_LIMIT_PER_MINUTE: {{ .Values.gateway.http.captureRateLimitPerMinute | int64 | quote }}
CAPTURE_RATE_LIMIT_PER_CREDENTIAL_PER_MINUTE: {{ .Values.gateway.http.captureRateLimitPerCredentialPerMinute | int64 | quote }}
UPLOAD_RATE_LIMIT_PER_MINUTE: {{ .Values.gateway.http.uploadRateLimitPerMinute | int64 | quote }}
UPLOAD_CONCURRENCY_PER_TENANT: {{ .Values.gateway.http.uploadConcurrencyPerTenant | int64 | quote }}
UPLOAD_CONCURRENCY_PER_PROCESS: {{ .Values.gateway.http.uploadConcurrencyPerProcess | int64 | quote }}
UPLOAD_STORAGE_QUOTA_BYTES: {{ .Values.gateway.http.uploadStorageQuotaBytes | int64 | quote }}
UPLOAD_READ_TIMEOUT_SECONDS: {{ .Values.gateway.http.uploadReadTimeoutSeconds | int64 | quote }}
UPLOAD_READ_MIN_BYTES_PER_SECOND: {{ .Values.gateway.http.uploadReadMinBytesPerSecond | int64 | quote }}
PARA_JOB_RATE_LIMIT_PER_MINUTE: {{ .Values.gateway.http.paraJobRateLimitPerMinute | int64 | quote }}
EVENT_STREAMS_PER_CREDENTIAL: {{ .Values.gateway.http.eventStreamsPerCredential | int64 | quote }}
EVENT_STREAMS_PER_TENANT: {{ .Values.gateway.http.eventStreamsPerTenant | int64 | quote }}
TRUST_PROXY_HOPS: {{ include "kg.trustProxyHops" . | quote }}
{{- end }}

{{/* Pod-level security context of every pod. */}}
{{- define "kg.podSecurityContext" -}}
{{- toYaml .Values.podSecurityContext }}
{{- end }}

{{/* Container-level security context of every container. */}}
{{- define "kg.containerSecurityContext" -}}
{{- toYaml .Values.containerSecurityContext }}
{{- end }}

{{/* Scheduling settings shared by every pod. */}}
{{- define "kg.scheduling" -}}
{{- with .Values.nodeSelector }}
nodeSelector: {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .Values.tolerations }}
tolerations: {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .Values.affinity }}
affinity: {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .Values.imagePullSecrets }}
imagePullSecrets: {{- toYaml . | nindent 2 }}
{{- end }}
{{- end }}
