#!/usr/bin/env bash
# test-deps.sh prepares a fresh machine for `make test`: Debian packages and
# the binaries the integration tiers run (built from Go modules, cached
# outside the repository). Idempotent; cheap when everything is present.
set -euo pipefail
cd "$(dirname "$0")/.."

# The kube-apiserver + etcd tier (bootstrap --apply, validate).
bash hack/build-kube.sh >/dev/null

# The web UI's browser test drives Debian's headless Chromium.
if ! command -v chromium >/dev/null 2>&1 && [[ "$(id -u)" == 0 ]] && command -v apt-get >/dev/null 2>&1; then
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends chromium >/dev/null
fi

# The Argo CD end-to-end tier (internal/e2e): argocd, helm and redis-server.
bash hack/build-argocd.sh >/dev/null
