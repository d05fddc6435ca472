#!/usr/bin/env bash
# test-deps.sh prepares a fresh machine for `make test`: Debian packages and
# the binaries the integration tiers run (built from Go modules, cached
# outside the repository). Idempotent; cheap when everything is present.
set -euo pipefail
cd "$(dirname "$0")/.."

# The kube-apiserver + etcd tier (bootstrap --apply, validate, and every
# tier above it).
bash hack/build-kube.sh >/dev/null
bash hack/build-etcd.sh >/dev/null

# The web UI's browser test drives Debian's headless Chromium.
log() { printf 'test-deps: %s\n' "$*" >&2; }
source hack/lib.sh
apt_ensure chromium chromium

# The Argo CD end-to-end tier (internal/e2e): argocd, helm and redis-server.
bash hack/build-argocd.sh >/dev/null

# Prometheus and Alertmanager (package promenv): rollout.stopWhen and
# Prometheus checks against the real servers, in internal/alert, rollout
# and e2e.
bash hack/build-prom.sh >/dev/null
