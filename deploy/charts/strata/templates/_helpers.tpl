{{/* The chart's name. */}}
{{- define "strata.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* The release's full name: the name of every object. */}}
{{- define "strata.fullname" -}}
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

{{- define "strata.selectorLabels" -}}
app.kubernetes.io/name: {{ include "strata.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "strata.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{ include "strata.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/component: rollout-runner
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{- define "strata.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "strata.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- required "serviceAccount.name: the service account to run as, when serviceAccount.create is false" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{- define "strata.leaseName" -}}
{{- default (include "strata.fullname" .) .Values.runner.leaseName }}
{{- end }}

{{- define "strata.image" -}}
{{- $tag := default .Chart.AppVersion .Values.image.tag }}
{{- if .Values.image.digest }}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest }}
{{- else }}
{{- printf "%s:%s" .Values.image.repository $tag }}
{{- end }}
{{- end }}

{{/* The checks of values that no template would catch. */}}
{{- define "strata.validate" -}}
{{- if not .Values.git.url }}
{{- fail "git.url: the fleet repository's URL is required" }}
{{- end }}
{{- if not (has .Values.git.auth (list "ssh" "https" "none")) }}
{{- fail (printf "git.auth %q: ssh, https or none" .Values.git.auth) }}
{{- end }}
{{- if and (ne .Values.git.auth "none") (not .Values.git.secretName) }}
{{- fail (printf "git.secretName: a Secret with the repository's credentials is required with git.auth %s" .Values.git.auth) }}
{{- end }}
{{- if and .Values.webhook.enabled (not .Values.webhook.secretName) }}
{{- fail "webhook.secretName: a Secret with key secret is required with webhook.enabled" }}
{{- end }}
{{- if not (has .Values.runner.onFailure (list "stop" "revert")) }}
{{- fail (printf "runner.onFailure %q: stop or revert" .Values.runner.onFailure) }}
{{- end }}
{{- if not (kindIs "map" (.Values.runner.rollout | default dict)) }}
{{- fail "runner.rollout: a map with the keys stopWhen and checks" }}
{{- end }}
{{- range $k, $v := .Values.runner.rollout }}
{{- if not (has $k (list "stopWhen" "checks")) }}
{{- fail (printf "runner.rollout.%s: unknown key (allowed: stopWhen, checks; the rest of a rollout's settings are config.yaml's or runner's flags)" $k) }}
{{- end }}
{{- end }}
{{- end }}

{{/* The environment git runs with, in both containers: who commits and
where the credentials are (git's GIT_CONFIG_* entries), never the
credentials. */}}
{{- define "strata.gitEnv" -}}
- name: HOME
  value: /home/strata
- name: GIT_TERMINAL_PROMPT
  value: "0"
{{- $config := list (list "user.name" .Values.git.author.name) (list "user.email" .Values.git.author.email) }}
{{- if eq .Values.git.auth "https" }}
{{- $config = append $config (list "credential.helper" "store --file=/etc/strata/git/credentials") }}
{{- end }}
- name: GIT_CONFIG_COUNT
  value: {{ len $config | quote }}
{{- range $i, $kv := $config }}
- name: GIT_CONFIG_KEY_{{ $i }}
  value: {{ index $kv 0 | quote }}
- name: GIT_CONFIG_VALUE_{{ $i }}
  value: {{ index $kv 1 | quote }}
{{- end }}
{{- if eq .Values.git.auth "ssh" }}
- name: GIT_SSH_COMMAND
  value: ssh -i /etc/strata/git/ssh-privatekey -o IdentitiesOnly=yes -o UserKnownHostsFile=/etc/strata/git/known_hosts -o StrictHostKeyChecking=yes
{{- end }}
{{- end }}

{{/* The volumes both containers mount: the clone, HOME, /tmp, and the
repository's credentials. */}}
{{- define "strata.mounts" -}}
- name: repo
  mountPath: /var/lib/strata
- name: home
  mountPath: /home/strata
- name: tmp
  mountPath: /tmp
{{- if ne .Values.git.auth "none" }}
- name: git-credentials
  mountPath: /etc/strata/git
  readOnly: true
{{- end }}
{{- end }}

{{/* The runner's rollout file (--rollout-config): runner.rollout as YAML. */}}
{{- define "strata.rolloutFile" -}}
{{ toYaml .Values.runner.rollout }}
{{- end }}
