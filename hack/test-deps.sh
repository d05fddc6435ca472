#!/usr/bin/env bash
# test-deps.sh prepares a fresh machine for `make test`: Debian packages and
# the binaries the integration tiers run (built from Go modules, cached
# outside the repository). Idempotent; cheap when everything is present.
set -euo pipefail
cd "$(dirname "$0")/.."

# The kube-apiserver + etcd tier (bootstrap --apply, validate).
bash hack/build-kube.sh >/dev/null
