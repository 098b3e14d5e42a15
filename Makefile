# The two commands a newcomer needs are in README.md: `make check-aodv` and `make test`.
GO ?= go

.PHONY: test test-go test-node test-views test-dap-client test-vscode check-aodv vsix bench bench-spin fmt vet tools generate-check

# Every test: Go (unit, golden transcripts, end-to-end DAP), then the Node/browser tests.
test: vet test-go test-node

# Linters, pinned: `go install` builds them from the module proxy into .tools/ on first use, and
# again only when a version here changes. On 2 cores with empty Go caches: staticcheck 2.5 min,
# goimports 10 s, and the first staticcheck run about 3 min (it analyses modernc's SQLite too);
# with warm caches seconds.
STATICCHECK_VERSION := v0.8.2
GOIMPORTS_VERSION := v0.52.0
TOOLS := $(CURDIR)/.tools
STATICCHECK := $(TOOLS)/staticcheck-$(STATICCHECK_VERSION)/staticcheck
GOIMPORTS := $(TOOLS)/goimports-$(GOIMPORTS_VERSION)/goimports
# Delve, for the tests that step into a handler (stepInto "code"): pinned, and required there.
DLV_VERSION := v1.27.2
DLV := $(TOOLS)/dlv-$(DLV_VERSION)/dlv

$(STATICCHECK):
	GOBIN=$(dir $@) $(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)

$(GOIMPORTS):
	GOBIN=$(dir $@) $(GO) install golang.org/x/tools/cmd/goimports@$(GOIMPORTS_VERSION)

$(DLV):
	GOBIN=$(dir $@) $(GO) install github.com/go-delve/delve/cmd/dlv@$(DLV_VERSION)

tools: $(STATICCHECK) $(GOIMPORTS) $(DLV)

# Static checks, and the architecture as a test (internal/layers): a lower layer that imports a
# higher one fails here.
vet: tools
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { echo "gofmt needed:"; gofmt -l $$(git ls-files '*.go'); exit 1; }
	@test -z "$$($(GOIMPORTS) -l $$(git ls-files '*.go'))" || { echo "goimports needed:"; $(GOIMPORTS) -l $$(git ls-files '*.go'); exit 1; }
	$(GO) mod tidy -diff
	cd examples/etcdraft && $(GO) mod tidy -diff && $(GO) vet ./...
	cd deploy && $(GO) mod tidy -diff && $(GO) vet ./...
	$(GO) vet ./...
	$(STATICCHECK) ./...
	$(GO) test -count=1 ./internal/layers
	$(MAKE) generate-check

# What internal/gen writes from Go must be committed as generated: package.json's launch schema,
# the tables in docs/launch.md (launch attributes, custom requests) and docs/views.md (the page's
# requests), and the TypeScript twins of Go types (every *.gen.ts: the launch attributes, the
# custom DAP requests, the views' requests and payloads).
GENERATED := vscode-extension/package.json docs/launch.md docs/views.md '*.gen.ts'
generate-check:
	$(GO) generate ./internal/gen
	git diff --exit-code -- $(GENERATED)
	@test -z "$$(git ls-files --others --exclude-standard -- $(GENERATED))" || { echo "commit the generated files:"; git ls-files --others --exclude-standard -- $(GENERATED); exit 1; }

# examples/etcdraft is a module of its own (a user's module, using etcd raft from its module), and so
# is deploy (the Kubernetes manifests, validated against the Kubernetes API types, which the checker
# itself must not depend on), so ./... reaches neither.
# One worker is built first: workers are built with a profile (-pgo), which the go command applies
# to the standard library too, so the first one compiles those packages again (9 s here); the
# tests' parallel builds would otherwise each do so at once (eight took 68 s).
test-go: $(DLV)
	$(GO) run ./cmd/cmcdap models ./examples/twophase >/dev/null
	CMC_DLV=$(DLV) CMC_REQUIRE_DLV=1 CMC_REQUIRE_POSTGRES=1 $(GO) test -count=1 ./...
	cd examples/etcdraft && $(GO) test -count=1 ./...
	cd deploy && $(GO) test -count=1 ./...

# The views bundle must be rebuilt reproducibly from its sources (dist/ is committed so that
# `go build` needs no npm), then the views are tested in headless Chromium.
test-node: test-views test-dap-client test-vscode

# VS Code's own debug-adapter test client drives the built cmcdap through the whole story.
test-dap-client:
	cd test/dap && npm ci --no-audit --no-fund && node --test

# The extension's unit tests, then the packaged .vsix in a real VS Code (code-server), driven by
# Playwright: F5 on a model, stop on the violation, step back, inline Choose values, the views.
test-vscode: $(DLV)
	cd vscode-extension && npm ci --no-audit --no-fund --loglevel=error && npm run typecheck && npm test
	PATH="$(dir $(DLV)):$$PATH" test/vscode/run.sh

# The VS Code extension with cmcdap for linux-x64 inside, packaged offline.
vsix:
	vscode-extension/scripts/package.sh

test-views:
	cd webview && npm ci --no-audit --no-fund && npm run check && npm run build
	git diff --exit-code -- webview/dist
	cd test/views && npm ci --no-audit --no-fund && npm test

check-aodv:
	$(GO) run ./cmd/cmcdap check -model AODVSpecBug ./examples/aodv

bench:
	$(GO) test -run='^$$' -bench=. -benchmem ./...

# SPIN against cmc on TwoPhase, the same state space (bench/twophase.pml): time, states/s, peak
# memory and bytes a state, and the ratios. Installs SPIN from Debian if missing. RM=9 takes
# minutes: `make bench-spin RM=7` for a quick run. Not part of `make test` or CI.
RM ?= 7 9
bench-spin:
	GO=$(GO) bench/run.sh $(RM)
