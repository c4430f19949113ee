{{/*
The shapes every component shares. A component folder (templates/<component>/) calls them
with (dict "root" $ "component" "<name>") and, for the Deployment, "env": the rendered list
of that service's own env (see templates/<component>/_env.tpl).
*/}}

{{/* Deployment of one service. */}}
{{- define "kg.deployment" -}}
{{- $root := .root }}
{{- $c := include "kg.componentValues" . | fromYaml }}
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ include "kg.componentName" . }}
  labels: {{- include "kg.componentLabels" . | nindent 4 }}
spec:
  {{- if not $c.autoscaling.enabled }}
  replicas: {{ $c.replicas }}
  {{- end }}
  revisionHistoryLimit: 5
  selector:
    matchLabels: {{- include "kg.componentSelectorLabels" . | nindent 6 }}
  strategy:
    type: RollingUpdate
    rollingUpdate: { maxSurge: 1, maxUnavailable: 0 }
  template:
    metadata:
      labels: {{- include "kg.componentLabels" . | nindent 8 }}
      annotations:
        checksum/config: {{ include "kg.configData" $root | sha256sum }}
        checksum/secrets: {{ print (include "kg.secretData" $root) (include "kg.connectionsData" $root) | sha256sum }}
        checksum/internal-key: {{ include "kg.internalKeyValue" . | sha256sum }}
        {{- if $root.Values.metrics.podAnnotations }}
        prometheus.io/scrape: "true"
        prometheus.io/path: /metrics
        prometheus.io/port: {{ $root.Values.metrics.port | int64 | quote }}
        {{- end }}
        {{- with $root.Values.podAnnotations }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
    spec:
      automountServiceAccountToken: false
      securityContext: {{- include "kg.podSecurityContext" $root | nindent 8 }}
      # Services stop within 20 s of SIGTERM (in-flight requests, outbox flush, consumer commits).
      terminationGracePeriodSeconds: 30
      {{- with include "kg.scheduling" $root | trim }}{{ . | nindent 6 }}{{ end }}
      containers:
        - name: {{ .component }}
          image: {{ include "kg.image" $root }}
          imagePullPolicy: {{ $root.Values.image.pullPolicy }}
          args: [{{ include "kg.entry" . | quote }}]
          ports:
            - name: http
              containerPort: {{ include "kg.port" . }}
              protocol: TCP
            # GET /metrics only (METRICS_PORT from the ConfigMap); never routed by the Ingress.
            - name: metrics
              containerPort: {{ $root.Values.metrics.port | int64 }}
              protocol: TCP
          envFrom:
            - configMapRef:
                name: {{ include "kg.configMapName" $root }}
          env:
            - name: PORT
              value: {{ include "kg.port" . | quote }}
            {{- .env | nindent 12 }}
            {{- with $c.extraEnv }}
            {{- toYaml . | nindent 12 }}
            {{- end }}
          # tsx compiles on start-up: give it up to a minute before liveness applies.
          startupProbe:
            httpGet: { path: /healthz, port: http }
            periodSeconds: 2
            failureThreshold: 30
          livenessProbe:
            httpGet: { path: /healthz, port: http }
            periodSeconds: 10
            timeoutSeconds: 3
            failureThreshold: 3
          # /readyz answers 503 while one of the service's own dependencies (its database, the
          # gateway's and graph's Redis) is down; never because a peer service is down. A gateway
          # that has just started is ready once its live-event feed has joined (at most 30 s).
          readinessProbe:
            httpGet: { path: /readyz, port: http }
            periodSeconds: 5
            timeoutSeconds: 3
            failureThreshold: 2
          resources: {{- toYaml $c.resources | nindent 12 }}
          securityContext: {{- include "kg.containerSecurityContext" $root | nindent 12 }}
          volumeMounts:
            - name: tmp
              mountPath: /tmp
      volumes:
        # The root filesystem is read-only; tsx's compile cache (and an outbox) live here.
        - name: tmp
          emptyDir:
            sizeLimit: {{ $root.Values.tmpSizeLimit }}
{{- end }}

{{/*
ClusterIP Service of one service (the gateway's type is configurable). The `metrics` port
is on ClusterIP Services only (for a ServiceMonitor): a LoadBalancer or NodePort Service
carries the http port alone, so metrics never leave the cluster.
*/}}
{{- define "kg.service" -}}
{{- $c := include "kg.componentValues" . | fromYaml }}
{{- $svc := $c.service | default dict }}
apiVersion: v1
kind: Service
metadata:
  name: {{ include "kg.componentName" . }}
  labels: {{- include "kg.componentLabels" . | nindent 4 }}
  {{- with $svc.annotations }}
  annotations: {{- toYaml . | nindent 4 }}
  {{- end }}
spec:
  type: {{ $svc.type | default "ClusterIP" }}
  selector: {{- include "kg.componentSelectorLabels" . | nindent 4 }}
  ports:
    - name: http
      port: {{ include "kg.port" . }}
      targetPort: http
      protocol: TCP
    {{- if eq ($svc.type | default "ClusterIP") "ClusterIP" }}
    - name: metrics
      port: {{ .root.Values.metrics.port | int64 }}
      targetPort: metrics
      protocol: TCP
    {{- end }}
{{- end }}

{{/* HorizontalPodAutoscaler on CPU (and optionally memory) utilisation. */}}
{{- define "kg.hpa" -}}
{{- $c := include "kg.componentValues" . | fromYaml }}
{{- if $c.autoscaling.enabled }}
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: {{ include "kg.componentName" . }}
  labels: {{- include "kg.componentLabels" . | nindent 4 }}
spec:
  scaleTargetRef:
    apiVersion: apps/v1
    kind: Deployment
    name: {{ include "kg.componentName" . }}
  minReplicas: {{ $c.autoscaling.minReplicas }}
  maxReplicas: {{ $c.autoscaling.maxReplicas }}
  metrics:
    - type: Resource
      resource:
        name: cpu
        target:
          type: Utilization
          averageUtilization: {{ $c.autoscaling.targetCPUUtilizationPercentage }}
    {{- with $c.autoscaling.targetMemoryUtilizationPercentage }}
    - type: Resource
      resource:
        name: memory
        target:
          type: Utilization
          averageUtilization: {{ . }}
    {{- end }}
{{- end }}
{{- end }}

{{/* PodDisruptionBudget: minAvailable when set, else maxUnavailable (safe with one replica). */}}
{{- define "kg.pdb" -}}
{{- $c := include "kg.componentValues" . | fromYaml }}
{{- if $c.pdb.enabled }}
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: {{ include "kg.componentName" . }}
  labels: {{- include "kg.componentLabels" . | nindent 4 }}
spec:
  {{- if $c.pdb.minAvailable }}
  minAvailable: {{ $c.pdb.minAvailable }}
  {{- else }}
  maxUnavailable: {{ $c.pdb.maxUnavailable }}
  {{- end }}
  selector:
    matchLabels: {{- include "kg.componentSelectorLabels" . | nindent 6 }}
{{- end }}
{{- end }}
