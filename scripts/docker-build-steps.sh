#!/usr/bin/env bash
# Runs the Dockerfile's build stage outside a container, the way `docker build` would: WORKDIR is a fresh
# directory, COPY copies from this checkout (minus .dockerignore), RUN runs; then checks what the final image runs.
# The steps are read from the Dockerfile itself, so the two cannot drift apart. An apt-get RUN is skipped when
# every package it names is already installed (it would otherwise change the host).
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
app="$work/app"
say() { printf '[docker-build-steps] %s\n' "$*" >&2; }

copy() { # copy SRC... DEST, relative to the repo and the current WORKDIR; "." copies the checkout
  local dest="${*: -1}" sources=("${@:1:$#-1}")
  mkdir -p "$dest"
  for source in "${sources[@]}"; do
    if [ "$source" = . ]; then
      (cd "$repo" && git ls-files -co --exclude-standard -z) |
        (cd "$repo" && tar -cf - --exclude-from=.dockerignore --null -T -) | tar -C "$dest" -xf -
    else
      cp "$repo/$source" "$dest/"
    fi
  done
}

dir="$work"
stage=0
while IFS= read -r line; do
  case "$line" in
    FROM*) stage=$((stage + 1)); [ "$stage" -gt 1 ] && break ;;
    WORKDIR*) dir="$work${line#WORKDIR }"; mkdir -p "$dir" ;;
    COPY*) say "$line"; read -r -a args <<<"${line#COPY }"; (cd "$dir" && copy "${args[@]}") ;;
    RUN*apt-get\ install*)
      packages="$(sed -E 's/.*install -y( --no-install-recommends)? ([^&]*).*/\2/' <<<"$line")"
      if dpkg -s $packages >/dev/null 2>&1; then say "skip (installed: $packages): $line"
      else say "$line"; (cd "$dir" && bash -euo pipefail -c "${line#RUN }"); fi ;;
    RUN*) say "$line"; (cd "$dir" && bash -euo pipefail -c "${line#RUN }") ;;
  esac
done <"$repo/Dockerfile"

[ "$dir" = "$app" ] || { say "expected WORKDIR /app, got ${dir#$work}"; exit 1; }
# The final image copies /app and runs `node bin/scratchpad.js`: it must start with production dependencies only.
entry="$(sed -nE 's/^ENTRYPOINT \["node", "([^"]+)"\]/\1/p' "$repo/Dockerfile")"
say "final image entry point: node $entry --help (NODE_ENV=production)"
(cd "$app" && NODE_ENV=production node "$entry" --help >/dev/null)
# The worker's dependencies are optional peers of the package: the image must have kept them through the prune.
say 'final image worker entry: require("./dist/src/worker.js")'
(cd "$app" && NODE_ENV=production node -e 'require("./dist/src/worker.js")')
[ ! -d "$app/node_modules/jest" ] || { say 'npm prune --omit=dev left dev dependencies'; exit 1; }
say 'the Dockerfile build steps work'
