# gridtui build targets. `make dist` cross-builds the worker/console binary for
# the platforms grid hosts run, into dist/gridtui-OS-ARCH, and the stripped
# worker into dist/gridtui-worker-OS-ARCH: `gridtui deploy` ships the stripped
# worker when it is there (and, for the running platform, comes from the same
# revision), else the running binary or gridtui-OS-ARCH.

GO      ?= go
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -s -w -X github.com/gridtui/gridtui/cli.version=$(VERSION)
PLATFORMS := linux-amd64 linux-arm64

.PHONY: all build dist test clean

all: build

build:
	$(GO) build -trimpath -ldflags "$(LDFLAGS)" -o gridtui ./cmd/gridtui

dist: $(addprefix dist/gridtui-,$(PLATFORMS)) $(addprefix dist/gridtui-worker-,$(PLATFORMS))

# Static (CGO_ENABLED=0) so one binary runs on any distribution of the arch.
dist/gridtui-%: FORCE
	@mkdir -p dist
	CGO_ENABLED=0 GOOS=$(word 1,$(subst -, ,$*)) GOARCH=$(word 2,$(subst -, ,$*)) \
		$(GO) build -trimpath -ldflags "$(LDFLAGS)" -o $@ ./cmd/gridtui

# The stripped worker, what deploy ships when it is there (see
# deploy/binary.go). Every build is lean: gain plots need no plotting library.
dist/gridtui-worker-%: FORCE
	@mkdir -p dist
	CGO_ENABLED=0 GOOS=$(word 1,$(subst -, ,$*)) GOARCH=$(word 2,$(subst -, ,$*)) \
		$(GO) build -trimpath -ldflags "$(LDFLAGS)" -o $@ ./cmd/gridtui

test:
	$(GO) test ./...

clean:
	rm -rf dist gridtui

FORCE:
