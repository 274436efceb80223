#!/bin/sh
# Builds tflm_run, the TensorFlow Lite Micro oracle of tests/oracle/tflm (README.md there),
# from a tflite-micro git directory, with Debian's packages only (no download):
#   scripts/build_tflm_oracle.sh <tflite-micro-git-dir> <out-dir>
# gives <out-dir>/build/tflm_run. Needs cmake, ninja (or make), a C++17 compiler,
# flatbuffers-compiler + libflatbuffers-dev, libgemmlowp-dev.
set -eu
if [ $# -ne 2 ]; then
  echo "usage: $0 <tflite-micro-git-dir> <out-dir>" >&2
  exit 1
fi
snapshot=$1
out=$(mkdir -p "$2" && cd "$2" && pwd)
here=$(cd "$(dirname "$0")/../tests/oracle/tflm" && pwd)

for tool in flatc cmake make; do
  command -v $tool >/dev/null || { echo "$0: $tool not found (apt-get install flatbuffers-compiler cmake make)" >&2; exit 1; }
done
[ -f /usr/include/flatbuffers/flatbuffers.h ] || { echo "$0: apt-get install libflatbuffers-dev" >&2; exit 1; }
[ -f /usr/include/gemmlowp/fixedpoint/fixedpoint.h ] || { echo "$0: apt-get install libgemmlowp-dev" >&2; exit 1; }

rm -rf "$out/src"
mkdir -p "$out/src"
git -C "$snapshot" archive HEAD | tar -x -C "$out/src"
git -C "$snapshot" rev-parse HEAD > "$out/snapshot_commit"

# The checked-in schema header was made by flatc 25.9.23 and static_asserts that version;
# regenerate it from the snapshot's schema with the installed flatc, with the flags of TFLM's
# own flatbuffer_cc_library (third_party/flatbuffers/build_defs.bzl: DEFAULT_FLATC_ARGS).
# flatc 2.0.8 does not parse "(deprecated)" on an enum value, a union member or a table
# (only on a field): dropping it there changes no value, only adds accessors.
sed -E 's/^([[:space:]]*[A-Za-z_0-9]+( = [0-9]+)?) \(deprecated\),/\1,/; s/^table ([A-Za-z_0-9]+) \(deprecated\) \{/table \1 {/' \
  "$out/src/tensorflow/compiler/mlir/lite/schema/schema.fbs" > "$out/schema.fbs"
flatc --cpp --no-union-value-namespacing --gen-object-api \
  -o "$out/src/tensorflow/lite/schema" "$out/schema.fbs"

# The same schema as Python (flatbuffers' object API) for tests/oracle/tflm/cut_model.py.
rm -rf "$out/pyschema"
flatc --python --gen-object-api -o "$out/pyschema" "$out/schema.fbs"

make -s -f "$here/print_sources.mk" TENSORFLOW_ROOT="$out/src/" print > "$out/sources.txt"

generator="Unix Makefiles"
command -v ninja >/dev/null && generator=Ninja
cmake -S "$here" -B "$out/build" -G "$generator" -DCMAKE_BUILD_TYPE=Release \
  -DTFLM_SRC="$out/src" -DTFLM_SOURCES_FILE="$out/sources.txt"
cmake --build "$out/build" --target tflm_run -j 2
echo "built $out/build/tflm_run (tflite-micro $(cat "$out/snapshot_commit"))"
