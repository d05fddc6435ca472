{{- /*
strata.metadata writes the metadata fields an item may set besides its name:
annotations (with the sync-wave annotation when the item sets syncWave),
labels, namespace and finalizers. The argument is the item.
*/ -}}
{{- define "strata.metadata" -}}
{{- $annotations := dict -}}
{{- with .additionalAnnotations }}{{ $annotations = merge $annotations . }}{{ end -}}
{{- if hasKey . "syncWave" }}{{ $_ := set $annotations "argocd.argoproj.io/sync-wave" (toString .syncWave) }}{{ end -}}
{{- with $annotations }}
annotations:
  {{- range $key, $value := . }}
  {{ $key }}: {{ $value | toString | quote }}
  {{- end }}
{{- end }}
{{- with .additionalLabels }}
labels:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .namespace }}
namespace: {{ . }}
{{- end }}
{{- with .finalizers }}
finalizers:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end -}}

{{- /* strata.enabled is "false" when the item sets enabled: false, else "true". */ -}}
{{- define "strata.enabled" -}}
{{- if and (kindIs "map" .) (hasKey . "enabled") (eq (toString .enabled) "false") }}false{{ else }}true{{ end -}}
{{- end -}}
