{{- /*
strata.metadata writes the metadata fields an item may set besides its name:
annotations (with the sync-wave annotation when the item has a syncWave),
labels, namespace and finalizers. The argument is the item. Templates here
never modify values: renders share them (see internal/render/fast.go).
*/ -}}
{{- define "strata.metadata" -}}
{{- $wave := "" -}}
{{- if hasKey . "syncWave" }}{{ $wave = toString .syncWave }}{{ end -}}
{{- if or .additionalAnnotations $wave }}
annotations:
  {{- range $key, $value := .additionalAnnotations }}
  {{- if not (and $wave (eq $key "argocd.argoproj.io/sync-wave")) }}
  {{ $key }}: {{ $value | toString | quote }}
  {{- end }}
  {{- end }}
  {{- with $wave }}
  argocd.argoproj.io/sync-wave: {{ . | quote }}
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

{{- /* strata.enabled is "false" when the item has enabled: false, else "true". */ -}}
{{- define "strata.enabled" -}}
{{- if and (kindIs "map" .) (hasKey . "enabled") (eq (toString .enabled) "false") }}false{{ else }}true{{ end -}}
{{- end -}}
