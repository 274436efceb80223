#!/usr/bin/env bash
# Installs every Debian package aotc needs (idempotent) and builds it into ./build.
# Usage: ./scripts/setup.sh        (run as root, or with sudo available)
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(
  build-essential cmake ninja-build clang lld llvm libclang-rt-14-dev
  libprotobuf-dev protobuf-compiler libonnx-dev libonnx-testdata
  libflatbuffers-dev flatbuffers-compiler
  libcli11-dev libdlpack-dev libtomlplusplus-dev nlohmann-json3-dev
  libgtest-dev googletest
  gcc-arm-none-eabi libnewlib-arm-none-eabi libnewlib-dev qemu-system-arm
  python3-onnx python3-numpy python3-venv
  chromium
)
# The differential test's reference runs in node (ONNX Runtime's node package): Debian's
# nodejs and npm unless a node and an npm are already on PATH.
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  packages+=(nodejs npm)
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release
cmake --build build

# The Python API (aot/python/aotc) in a virtual environment that sees Debian's numpy:
# build/venv/bin/python, or `. build/venv/bin/activate` for a notebook. The package is the
# source tree's (a .pth file), and it calls build/aotc.
if [ ! -x build/venv/bin/python ]; then
  /usr/bin/python3 -m venv --system-site-packages --without-pip build/venv
fi
site=$(build/venv/bin/python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
echo "$PWD/aot/python" > "$site/aotc.pth"

# ONNX Runtime for node, the differential test's reference (tests/difftest), once. Its
# package carries the native library; no install script needs to run.
if [ ! -f build/npm/node_modules/onnxruntime-node/package.json ]; then
  npm install --ignore-scripts --no-audit --no-fund --prefix build/npm onnxruntime-node@1.30.0
fi
