{{- define "dynamo-operator-crds.labels" -}}
app.kubernetes.io/name: dynamo-operator
app.kubernetes.io/component: crds
app.kubernetes.io/part-of: dynamo-operator
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | quote }}
{{- end }}
