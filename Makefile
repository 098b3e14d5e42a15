# The two commands a newcomer needs are in README.md: `make check-aodv` and `make test`.
GO ?= go

.PHONY: test test-go test-node check-aodv vsix bench fmt vet

# Every test: Go (unit, golden transcripts, end-to-end DAP), then the Node/browser tests.
test: vet test-go test-node

vet:
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { echo "gofmt needed:"; gofmt -l $$(git ls-files '*.go'); exit 1; }
	$(GO) vet ./...

test-go:
	$(GO) test -count=1 ./...

test-node:
	@echo "no node tests yet"

check-aodv:
	$(GO) run ./cmd/cmcdap check -model AODVSpecBug ./examples/aodv

bench:
	$(GO) test -run='^$$' -bench=. -benchmem ./...
