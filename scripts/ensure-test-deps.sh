#!/usr/bin/env bash
# The tests use a real redis-server, headless Chromium, bubblewrap (the shell sandbox) and tmux (a terminal for chat);
# building llama-server for the real-model tests needs cmake, a C++ compiler and python3 with pip. Installs them with apt when missing (Debian/Ubuntu,
# as root or with sudo); elsewhere says what to install. The Temporal CLI is provisioned by the tests themselves.
set -euo pipefail

missing=()
command -v redis-server >/dev/null || missing+=(redis-server)
[ -x "${CHROMIUM_PATH:-/usr/bin/chromium}" ] || missing+=(chromium)
command -v bwrap >/dev/null || missing+=(bubblewrap)
command -v tmux >/dev/null || missing+=(tmux)
command -v cmake >/dev/null || missing+=(cmake)
command -v g++ >/dev/null || missing+=(g++)
python3 -m pip --version >/dev/null 2>&1 || missing+=(python3-pip)
[ ${#missing[@]} -eq 0 ] && exit 0

echo "[test deps] missing: ${missing[*]}" >&2
sudo=''
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null && sudo -n true 2>/dev/null; then sudo='sudo'; else sudo='none'; fi
fi
if ! command -v apt-get >/dev/null || [ "$sudo" = none ]; then
  echo "[test deps] install ${missing[*]} with your package manager (Debian: apt-get install ${missing[*]}), then rerun." >&2
  exit 1
fi
echo "[test deps] installing ${missing[*]} with apt-get" >&2
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >&2
command -v redis-server >/dev/null && command -v bwrap >/dev/null && command -v tmux >/dev/null && [ -x "${CHROMIUM_PATH:-/usr/bin/chromium}" ] || {
  echo "[test deps] still missing after apt-get: redis-server, bwrap, tmux or ${CHROMIUM_PATH:-/usr/bin/chromium}" >&2
  exit 1
}
