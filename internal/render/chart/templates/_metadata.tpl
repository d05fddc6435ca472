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

{{- /*
strata.name is the name of the resource an item makes; the argument is
(list key item): the item's name: or, without one, config.yaml's
render.namePrefix and the key. A template in the prefix (or in name:) stays
in the text and pass 2 renders it with the target's values.
*/ -}}
{{- define "strata.name" -}}
{{- $item := index . 1 -}}
{{- if hasKey $item "name" }}{{ toString $item.name }}{{ else }}{{ strataNamePrefix }}{{ index . 0 }}{{ end -}}
{{- end -}}

{{- /* strata.enabled is "false" when the item has enabled: false, else "true". */ -}}
{{- define "strata.enabled" -}}
{{- if and (kindIs "map" .) (hasKey . "enabled") (eq (toString .enabled) "false") }}false{{ else }}true{{ end -}}
{{- end -}}
