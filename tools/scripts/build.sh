#!/usr/bin/env bash
# Configures (once) and builds tessel into build/ with Ninja.
#
# With TESSEL_CI=1 (.ci/run sets it) the build is CI's: warnings are errors
# (TESSEL_WERROR) and objects carry no debug information (-O2 without -g), which
# compiles and links about a quarter faster on CI's two cores; the unit tests' own
# files and the Python module's are compiled at -O1 (tests/unit/CMakeLists.txt,
# python/CMakeLists.txt). IPO stays off:
# pybind11 would otherwise link the Python module with serial LTO in a Release build.
# CI then prints where the build's time went (tools/scripts/build_time_summary.py).
set -euo pipefail
cd "$(dirname "$0")/../.."
if [ ! -f build/build.ninja ]; then
  if [ "${TESSEL_CI:-0}" = 1 ]; then
    cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_C_FLAGS_RELEASE="-O2 -DNDEBUG" -DCMAKE_CXX_FLAGS_RELEASE="-O2 -DNDEBUG" \
      -DCMAKE_INTERPROCEDURAL_OPTIMIZATION=OFF -DTESSEL_WERROR=ON \
      -DTESSEL_TEST_OPT_FLAGS=-O1 -DTESSEL_BINDINGS_OPT_FLAGS=-O1 \
      -DPython3_EXECUTABLE=/usr/bin/python3
  else
    cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPython3_EXECUTABLE=/usr/bin/python3
  fi
fi
ninja -C build
if [ "${TESSEL_CI:-0}" = 1 ]; then
  /usr/bin/python3 tools/scripts/build_time_summary.py build/.ninja_log
fi
