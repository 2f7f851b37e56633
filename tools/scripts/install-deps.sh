#!/usr/bin/env bash
# Installs what tessel needs from Debian's packages (Debian 12, as root or via sudo).
# Idempotent and quick when everything is present: apt runs only for what is missing.
set -euo pipefail

PACKAGES=(
  # Build tools.
  cmake ninja-build g++ ccache git
  # The IR core and tests.
  libabsl-dev libgtest-dev libgmock-dev googletest
  # FileCheck, not and lit for the lit tests; LLVM/MLIR 19 for codegen.
  llvm-19-tools llvm-19-dev libmlir-19-dev mlir-19-tools
  # Python bindings and their tests.
  python3 python3-dev python3-numpy python3-pytest pybind11-dev
  # Runtime tensors (DLPack) and the BLAS reference in tessel-bench.
  libdlpack-dev libopenblas-dev
  # oneDNN, the reference of tessel-bench's auto/ cases (its OpenCL loader to link).
  libdnnl-dev ocl-icd-libopencl1
  # Tuning: the database (SQLite, JSON), the cost model (XGBoost), the dask runner and
  # the plots.
  libsqlite3-dev nlohmann-json3-dev libxgboost-dev python3-distributed python3-matplotlib
  # The graph level's ONNX import (tessel.frontend).
  python3-onnx
  # The sanitizer build and the parser fuzzer (tools/scripts/run-sanitizers.sh).
  clang-19 libclang-rt-19-dev libfuzzer-19-dev
)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#PACKAGES[@]} packages present"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
