# Junction: make test runs every test (interop included) and installs what
# the tests need; make bench runs the benchmarks recorded in docs/BENCHMARKS.md;
# make build and make release build static binaries (docs/operations.md).

GO ?= go
PKGS := ./...
# A module of its own that uses Junction as a library, through its public
# packages only (its go.mod replaces Junction with this tree); ./... of the
# main module leaves it out, so vet and unit run it apart.
PUBLICAPI := test/publicapi

.PHONY: test deps vet unit bench bench-base fuzz soak build release

# What "junction version" prints; each may be set on the command line
# (make build VERSION=v1.2.3). SOURCE_DATE_EPOCH fixes the build date, for
# reproducible builds.
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
COMMIT ?= $(shell git rev-parse HEAD 2>/dev/null)
DATE ?= $(shell date -u -d @$${SOURCE_DATE_EPOCH:-$$(date +%s)} +%Y-%m-%dT%H:%M:%SZ 2>/dev/null || date -u -r $${SOURCE_DATE_EPOCH:-$$(date +%s)} +%Y-%m-%dT%H:%M:%SZ)

# A static binary (no cgo: the net and os/user packages use their pure Go
# versions), with no build paths in it (-trimpath).
VERSIONPKG := github.com/junction-wamp/junction/internal/node
LDFLAGS := -s -w -X $(VERSIONPKG).Version=$(VERSION) -X $(VERSIONPKG).Commit=$(COMMIT) -X $(VERSIONPKG).Date=$(DATE)
BUILD := CGO_ENABLED=0 $(GO) build -trimpath -ldflags '$(LDFLAGS)'

# make build: bin/junction for this machine.
BIN ?= bin
build:
	$(BUILD) -o $(BIN)/junction ./cmd/junction

# make release: one binary per platform in dist/, named
# junction-VERSION-OS-ARCH(.exe), and their SHA256SUMS.
DIST ?= dist
PLATFORMS ?= linux/amd64 linux/arm64 darwin/arm64 windows/amd64
release:
	mkdir -p $(DIST)
	rm -f $(DIST)/junction-* $(DIST)/SHA256SUMS
	for p in $(PLATFORMS); do \
		os=$${p%/*}; arch=$${p#*/}; ext=; [ $$os = windows ] && ext=.exe; \
		GOOS=$$os GOARCH=$$arch $(BUILD) -o $(DIST)/junction-$(VERSION)-$$os-$$arch$$ext ./cmd/junction || exit 1; \
	done
	cd $(DIST) && { sha256sum junction-* 2>/dev/null || shasum -a 256 junction-*; } > SHA256SUMS

test: deps vet unit

deps:
	bash scripts/install-test-deps.sh

vet:
	$(GO) vet $(PKGS)
	cd $(PUBLICAPI) && $(GO) vet ./...
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

# -race on everything; fuzz targets run their seed corpora as ordinary tests.
unit:
	$(GO) test -race -count=1 -timeout 8m $(PKGS)
	# The node's tests again on net/http's server ("http_engine": "stdlib";
	# the default engine is h1, "junction"), and on the event loops
	# ("loop": plain proxied GETs in the loops, the rest handed to h1).
	JUNCTION_TEST_HTTP_ENGINE=stdlib $(GO) test -race -count=1 -timeout 8m ./internal/node/
	JUNCTION_TEST_HTTP_ENGINE=loop $(GO) test -race -count=1 -timeout 8m ./internal/node/
	cd $(PUBLICAPI) && $(GO) test -race -count=1 -timeout 2m ./...

# Short fuzzing of every target (not part of make test).
FUZZTIME ?= 30s
fuzz:
	bash scripts/fuzz-all.sh $(FUZZTIME)

# make bench: everything in docs/BENCHMARKS.md, the base-vs-head rounds
# last; make bench-base: those rounds alone. BENCH_BASE (a commit, default
# 21bf6ab), BENCH_ROUNDS (default 7) and BENCH_ONLY (a regular expression
# selecting measurements, e.g. idle) are read from the environment.
bench:
	bash scripts/bench.sh

bench-base:
	bash scripts/bench-base.sh

# Soak tests (not part of make test): the binary under connection bursts and
# floods, each scenario a test in test/soak (build tag soak).
soak:
	$(GO) vet -tags soak ./test/soak
	$(GO) test -tags soak -count=1 -v -timeout 30m ./test/soak
