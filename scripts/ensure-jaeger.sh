#!/usr/bin/env bash
# Provisions Jaeger v2 (an OpenTelemetry Collector distribution with Jaeger's storage and query API) for the telemetry
# tests, cached outside the repo like the Temporal CLI. Prints the binary's path. Built from source with Go: the
# module has replace directives, so `go install pkg@version` refuses it; a module of our own adds it as a tool
# (`go get -tool`) and builds it. About 5 minutes on 2 cores, once per machine; later runs only check the binary.
set -euo pipefail

JAEGER_VERSION=v1.76.0

cache="${XDG_CACHE_HOME:-$HOME/.cache}/durable-scratchpad"
binary="$cache/jaeger/jaeger"
tool="$cache/jaeger-tool"

log() { printf '[jaeger] %s\n' "$*" >&2; }
fail() {
  printf '[jaeger] cannot provision Jaeger: %s\n' "$*" >&2
  exit 1
}

if [ -n "${JAEGER_PATH:-}" ]; then
  [ -x "$JAEGER_PATH" ] || fail "JAEGER_PATH=$JAEGER_PATH is not an executable"
  echo "$JAEGER_PATH"
  exit 0
fi

mkdir -p "$cache/jaeger"
exec 9>"$cache/jaeger/.lock"
flock 9

if [ -x "$binary" ] && "$binary" version >/dev/null 2>&1 && [ -f "$tool/go.mod" ] && grep -q "jaegertracing/jaeger $JAEGER_VERSION" "$tool/go.mod"; then
  echo "$binary"
  exit 0
fi

command -v go >/dev/null || fail 'no Go toolchain (install Go 1.24 or later, or set JAEGER_PATH to a jaeger v2 binary)'
log "building Jaeger $JAEGER_VERSION with go (about 5 minutes on 2 cores, once)"
mkdir -p "$tool"
cd "$tool"
[ -f go.mod ] || go mod init jaeger-tool >/dev/null 2>&1 || fail 'go mod init failed'
go get -tool "github.com/jaegertracing/jaeger/cmd/jaeger@$JAEGER_VERSION" >"$tool/get.log" 2>&1 ||
  { tail -20 "$tool/get.log" >&2; fail "go get -tool github.com/jaegertracing/jaeger/cmd/jaeger@$JAEGER_VERSION failed"; }
go build -o "$binary.tmp" github.com/jaegertracing/jaeger/cmd/jaeger >"$tool/build.log" 2>&1 ||
  { tail -20 "$tool/build.log" >&2; fail 'go build failed'; }
mv "$binary.tmp" "$binary"
log "built $binary"
echo "$binary"
