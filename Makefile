# strata — developer tasks. `make help` lists them.
GO      ?= go
BIN     ?= bin/strata
EXAMPLE ?= examples/seed-003

.PHONY: help build test test-short lint golden bench e2e example tidy release image

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-12s %s\n", $$1, $$2}'

build: ## build bin/strata
	$(GO) build -o $(BIN) ./cmd/strata

release: ## stripped, reproducible binaries for linux and darwin (amd64, arm64) and SHA256SUMS in dist/
	bash hack/release.sh

image: ## the container image strata:<version> as an OCI image layout in dist/image (docs/image.md)
	bash hack/image.sh dist/image

example: ## render the bundled seed 003 example fleet
	$(GO) run ./cmd/strata --root $(EXAMPLE) render

test: ## all tests, including those against a real kube-apiserver and Argo CD (prepares them first; hack/test.sh)
	bash hack/test-deps.sh
	bash hack/test.sh

test-short: ## unit and CLI tests only (skips the API server and Argo CD tiers)
	$(GO) test -short -count=1 ./...

lint: ## go vet, gofmt, go mod tidy, golangci-lint (.golangci.yml; installed by hack/golangci-lint.sh)
	$(GO) vet ./...
	@test -z "$$(gofmt -l cmd internal hack)" || { gofmt -l cmd internal hack; echo 'run gofmt -w'; exit 1; }
	$(GO) mod tidy -diff
	"$$(bash hack/golangci-lint.sh)" run ./...

# The test packages that keep golden files define -update; only they get it.
GOLDEN_PKGS = $(shell grep -rl '"update", false' --include='*_test.go' . | xargs -n1 dirname | sort -u)

golden: ## refresh golden files, scenarios' expected output and the examples' rendered/ trees
	$(GO) test -short -count=1 $(GOLDEN_PKGS) -update

bench: ## benchmarks (SPEC §9); see BENCHMARKS.md
	$(GO) test -run '^$$' -bench . -benchmem -benchtime 3x ./internal/...

e2e: ## end-to-end tests against real Argo CD
	bash hack/test-deps.sh
	$(GO) test -count=1 -timeout 45m -run E2E -v ./internal/e2e/...
