{{/*
Names. fullname is Helm's usual: the release name when it contains the chart name, else
<release>-dynamo-operator, so `helm install dynamo-platform` names objects as upstream's platform
chart did (dynamo-platform-dynamo-operator-...).
*/}}
{{- define "dynamo-operator.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "dynamo-operator.fullname" -}}
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

{{- define "dynamo-operator.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{ include "dynamo-operator.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: dynamo-operator
{{- end }}

{{- define "dynamo-operator.selectorLabels" -}}
app.kubernetes.io/name: {{ include "dynamo-operator.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{/*
Prefix of cluster-scoped objects (ClusterRoles, their bindings): namespace-restricted releases of
the same name in different namespaces must not share them.
*/}}
{{- define "dynamo-operator.clusterName" -}}
{{- if .Values.namespaceRestriction.enabled -}}
{{ include "dynamo-operator.fullname" . }}-{{ .Release.Namespace }}
{{- else -}}
{{ include "dynamo-operator.fullname" . }}
{{- end }}
{{- end }}

{{- define "dynamo-operator.serviceAccountName" -}}
{{ include "dynamo-operator.fullname" . }}-controller-manager
{{- end }}

{{/* The namespace the operator manages in namespace-restricted mode. */}}
{{- define "dynamo-operator.targetNamespace" -}}
{{ default .Release.Namespace .Values.namespaceRestriction.targetNamespace }}
{{- end }}

{{- define "dynamo-operator.leaderElectionId" -}}
{{ default "dynamo.nvidia.com" .Values.controllerManager.leaderElection.id }}
{{- end }}

{{- define "dynamo-operator.leaderElectionNamespace" -}}
{{ default .Release.Namespace .Values.controllerManager.leaderElection.namespace }}
{{- end }}

{{- define "dynamo-operator.plannerRoleName" -}}
{{ include "dynamo-operator.fullname" . }}-planner
{{- end }}

{{- define "dynamo-operator.discoveryRoleName" -}}
{{ include "dynamo-operator.fullname" . }}-k8s-service-discovery
{{- end }}

{{/*
The webhook Service: the operator's own certificate names dynamo-operator-webhook-service.<ns>.svc
whatever the release is called, so the Service has that name (one operator per namespace: the
operator-managed certificate Secret is per namespace too).
*/}}
{{- define "dynamo-operator.webhookServiceName" -}}
dynamo-operator-webhook-service
{{- end }}

{{/* Cluster-wide <fullname>-validating; namespace-restricted <fullname>-validating-<target>. */}}
{{- define "dynamo-operator.webhookConfigurationName" -}}
{{- if .Values.namespaceRestriction.enabled -}}
{{ include "dynamo-operator.fullname" . }}-validating-{{ include "dynamo-operator.targetNamespace" . }}
{{- else -}}
{{ include "dynamo-operator.fullname" . }}-validating
{{- end }}
{{- end }}

{{/* How the webhook server gets its certificate: operator-managed, cert-manager or external. */}}
{{- define "dynamo-operator.webhookCertificateMode" -}}
{{- if .Values.webhook.certManager.enabled -}}
cert-manager
{{- else if .Values.webhook.certificateSecret.external -}}
external
{{- else -}}
operator-managed
{{- end }}
{{- end }}

{{- define "dynamo-operator.webhookCertPath" -}}
/tmp/k8s-webhook-server/serving-certs
{{- end }}

{{- define "dynamo-operator.image" -}}
{{ .Values.controllerManager.manager.image.repository }}:{{ .Values.controllerManager.manager.image.tag | default .Chart.AppVersion }}
{{- end }}

{{/*
A Role/ClusterRole body from a rules file of rbac/ (templated with the release's values).
Usage: include "dynamo-operator.rules" (list . "rbac/manager.yaml")
*/}}
{{- define "dynamo-operator.rules" -}}
{{- $root := index . 0 }}
{{- $file := index . 1 }}
{{- $rules := (tpl ($root.Files.Get $file) $root | fromYaml).rules }}
{{- if not $rules }}
{{- fail (printf "%s holds no rules" $file) }}
{{- end }}
rules:
{{ toYaml $rules }}
{{- end }}

{{/*
A role (kind Role or ClusterRole) with the rules of a file, and its binding to the operator's
ServiceAccount. Usage: include "dynamo-operator.boundRole" (dict "root" . "kind" "Role" "name"
"x" "namespace" "ns" "file" "rbac/x.yaml" "component" "rbac")
*/}}
{{- define "dynamo-operator.boundRole" -}}
{{- $root := .root }}
{{- $namespaced := eq .kind "Role" }}
apiVersion: rbac.authorization.k8s.io/v1
kind: {{ .kind }}
metadata:
  name: {{ .name }}
  {{- if $namespaced }}
  namespace: {{ .namespace }}
  {{- end }}
  labels:
    {{- include "dynamo-operator.labels" $root | nindent 4 }}
    app.kubernetes.io/component: rbac
{{ include "dynamo-operator.rules" (list $root .file) }}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: {{ if $namespaced }}RoleBinding{{ else }}ClusterRoleBinding{{ end }}
metadata:
  name: {{ .name }}
  {{- if $namespaced }}
  namespace: {{ .namespace }}
  {{- end }}
  labels:
    {{- include "dynamo-operator.labels" $root | nindent 4 }}
    app.kubernetes.io/component: rbac
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: {{ .kind }}
  name: {{ .name }}
subjects:
- kind: ServiceAccount
  name: {{ include "dynamo-operator.serviceAccountName" $root }}
  namespace: {{ $root.Release.Namespace }}
{{- end }}
