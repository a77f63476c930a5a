# Junction: make test runs every test (interop included) and installs what
# the tests need; make bench runs the benchmarks recorded in docs/BENCHMARKS.md.

GO ?= go
PKGS := ./...

.PHONY: test deps vet unit bench fuzz soak

test: deps vet unit

deps:
	bash scripts/install-test-deps.sh

vet:
	$(GO) vet $(PKGS)
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

# -race on everything; fuzz targets run their seed corpora as ordinary tests.
unit:
	$(GO) test -race -count=1 -timeout 8m $(PKGS)

# Short fuzzing of every target (not part of make test).
FUZZTIME ?= 30s
fuzz:
	bash scripts/fuzz-all.sh $(FUZZTIME)

bench:
	bash scripts/bench.sh

# Soak tests (not part of make test): the binary under connection bursts and
# floods, each scenario a test in test/soak (build tag soak).
soak:
	$(GO) vet -tags soak ./test/soak
	$(GO) test -tags soak -count=1 -v -timeout 30m ./test/soak
