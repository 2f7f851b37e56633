#!/bin/bash
# The installed tessel, away from the build tree: `cmake --install` into a fresh
# prefix, then
#   1. the installed tessel-opt exports the C ABI test's kernels (one of them calls
#      oneDNN); the library's RUNPATH names the prefix's lib/, never the build tree,
#      and the C test, built against the installed header and runtime, passes on it;
#   2. --bundle-runtime writes the runtime libraries beside the library, whose only
#      RUNPATH is $ORIGIN: with the prefix deleted and the directory moved, the C
#      test still passes;
#   3. the installed Python package imports from the prefix.
#
#   install_test.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$(cd "$1" && pwd)
src=$(cd "$2" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix
unset LD_LIBRARY_PATH

cmake --install "$build" --prefix "$prefix" > /dev/null
cat "$src/tests/c/kernels.tsl" "$src/tests/c/dispatched_kernels.tsl" > "$work/kernels.tsl"

runpath() { readelf -d "$1" | sed -n 's/.*(RUNPATH).*\[\(.*\)\]/\1/p'; }
fail() { echo "install_test: $*" >&2; exit 1; }

# 1. Exported by the installed tessel-opt.
mkdir "$work/out"
"$prefix/bin/tessel-opt" "$work/kernels.tsl" --emit=so -o "$work/out/kernels.so"
rp=$(runpath "$work/out/kernels.so")
[[ "$rp" == "\$ORIGIN:$prefix/lib" ]] || fail "RUNPATH '$rp', expected '\$ORIGIN:$prefix/lib'"
[[ "$rp" != *"$build"* ]] || fail "RUNPATH '$rp' names the build tree"
cc -std=c11 -Werror -O1 -I"$work/out" -I"$prefix/include/tessel" "$src/tests/c/c_abi_test.c" \
  -o "$work/c_abi" -L"$prefix/lib" -ltessel_runtime -lm -Wl,-rpath,"$prefix/lib"
"$work/c_abi" "$work/out/kernels.so" || fail "the C test failed on the installed export"

# 2. A bundled directory, moved, with the installation gone.
mkdir "$work/ship"
"$prefix/bin/tessel-opt" "$work/kernels.tsl" --emit=so --bundle-runtime -o "$work/ship/kernels.so"
rp=$(runpath "$work/ship/kernels.so")
[[ "$rp" == "\$ORIGIN" ]] || fail "bundled RUNPATH '$rp', expected '\$ORIGIN'"
for lib in libtessel_runtime.so libtessel_dispatch_runtime.so; do
  [[ -f "$work/ship/$lib" ]] || fail "--bundle-runtime wrote no $lib"
done
cc -std=c11 -Werror -O1 -I"$work/ship" -I"$src/codegen/runtime" "$src/tests/c/c_abi_test.c" \
  -o "$work/ship/c_abi" -L"$work/ship" -ltessel_runtime -lm -Wl,--enable-new-dtags,-rpath,'$ORIGIN'
python3_bin=${PYTHON:-/usr/bin/python3}
# 3. The installed Python package (before the prefix goes).
PYTHONPATH="$prefix/lib/python3/dist-packages" "$python3_bin" -c "
import tessel, sys
assert tessel.__file__.startswith('$prefix/'), tessel.__file__
print('installed tessel imports from', tessel.__file__)
" || fail "the installed Python package does not import"
rm -rf "$prefix"
mv "$work/ship" "$work/moved"
"$work/moved/c_abi" "$work/moved/kernels.so" || fail "the C test failed on the moved bundle"
echo "install_test: ok"
