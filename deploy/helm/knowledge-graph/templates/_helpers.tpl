{{/* Chart name. */}}
{{- define "kg.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Fully qualified release name. */}}
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

{{/* Common labels. */}}
{{- define "kg.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{ include "kg.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{/* Selector labels. */}}
{{- define "kg.selectorLabels" -}}
app.kubernetes.io/name: {{ include "kg.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{/* Labels of one component; call with (dict "root" $ "component" $name). */}}
{{- define "kg.componentLabels" -}}
{{ include "kg.labels" .root }}
app.kubernetes.io/component: {{ .component }}
{{- end }}

{{- define "kg.componentSelectorLabels" -}}
{{ include "kg.selectorLabels" .root }}
app.kubernetes.io/component: {{ .component }}
{{- end }}

{{/* Resource name of a component. */}}
{{- define "kg.componentName" -}}
{{- printf "%s-%s" (include "kg.fullname" .root) .component | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "kg.image" -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) }}
{{- end }}

{{- define "kg.secretName" -}}
{{- default (printf "%s-secrets" (include "kg.fullname" .)) .Values.secrets.existingSecret }}
{{- end }}

{{/* In-cluster URL of a component. */}}
{{- define "kg.url" -}}
{{- $c := index .root.Values.components .component -}}
{{- printf "http://%s:%v" (include "kg.componentName" .) $c.port }}
{{- end }}

{{/* Environment every component receives. */}}
{{- define "kg.env" -}}
- name: DATABASE_URL
  valueFrom:
    secretKeyRef:
      name: {{ default (include "kg.secretName" .root) .root.Values.postgres.existingSecret }}
      key: {{ .root.Values.postgres.existingSecretKey }}
- name: INTERNAL_TOKEN_SECRET
  valueFrom: { secretKeyRef: { name: {{ include "kg.secretName" .root }}, key: INTERNAL_TOKEN_SECRET } }
- name: PORT
  value: {{ .port | quote }}
- name: AUTH_URL
  value: {{ include "kg.url" (dict "root" .root "component" "auth") }}
- name: GRAPH_URL
  value: {{ include "kg.url" (dict "root" .root "component" "graph") }}
- name: PARA_URL
  value: {{ include "kg.url" (dict "root" .root "component" "para") }}
- name: CAPTURES_URL
  value: {{ include "kg.url" (dict "root" .root "component" "captures") }}
- name: SEARCH_URL
  value: {{ include "kg.url" (dict "root" .root "component" "search") }}
{{- if eq .component "auth" }}
{{- /* Only the auth service holds the signing key, the pepper and the SMTP credentials. */}}
- name: API_KEY_PEPPER
  valueFrom: { secretKeyRef: { name: {{ include "kg.secretName" .root }}, key: API_KEY_PEPPER } }
- name: AUTH_SIGNING_KEY
  valueFrom: { secretKeyRef: { name: {{ include "kg.secretName" .root }}, key: AUTH_SIGNING_KEY } }
- name: SMTP_URL
  valueFrom: { secretKeyRef: { name: {{ include "kg.secretName" .root }}, key: SMTP_URL, optional: true } }
{{- end }}
{{- end }}
