#!/bin/sh
# Host float32 speed against ONNX Runtime (issue #15): exports torchvision's SqueezeNet 1.1
# and MobileNetV2 at 96x96 and 224x224 with torch.onnx.export (export_torchvision.py, when
# /usr/bin/python3 has Debian's torch and torchvision; else make_models.cc writes the same
# architectures layer by layer), compiles each with aotc for the host,
# builds harness.c with clang -O3 -march=native (and gcc -O3 -march=native when there is
# a gcc), and has bench.js time ONNX Runtime (onnxruntime-node, one thread) and the builds
# alternately on the same input, check the outputs against ONNX Runtime's and print a
# Markdown table.
#
#   bench/host_float/run.sh AOTC MODEL_WRITER [WORK_DIR] [ROUNDS]
#
# Needs node and npm with the npm registry reachable, so it is not part of ctest.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
aotc=$1
writer=$2
work=${3:-$here/../../build/bench-host-float}
rounds=${4:-5}
mkdir -p "$work"
cd "$work"
if [ ! -d node_modules/onnxruntime-node ]; then npm install --ignore-scripts --no-save onnxruntime-node@1.30.0 >/dev/null; fi
if /usr/bin/python3 -c "import torch, torchvision" 2>/dev/null; then
  models=models-torchvision
  /usr/bin/python3 "$here/export_torchvision.py" "$models"
  echo "models: torchvision's, exported by torch.onnx.export (export_torchvision.py)"
else
  models=models
  "$writer" "$models"
  echo "models: make_models.cc's reconstructions (no torch in /usr/bin/python3)"
fi
compilers=clang
if command -v gcc >/dev/null 2>&1; then compilers="clang gcc"; fi
specs=""
for model in squeezenet1_1_96 squeezenet1_1_224 mobilenet_v2_96 mobilenet_v2_224; do
  rm -rf "out/$model"
  "$aotc" compile "$models/$model.onnx" -o "out/$model" --name net --target host
  harnesses=""
  for cc in $compilers; do
    "$cc" -O3 -march=native -I"out/$model" "$here/harness.c" "out/$model/net.c" "out/$model/net_constants.c" \
      "out/$model/aotc_runtime.c" -lm -o "out/$model/$model.$cc"
    harnesses="$harnesses${harnesses:+,}$work/out/$model/$model.$cc"
  done
  size=${model##*_}
  specs="$specs $models/$model.onnx:$size:$harnesses"
done
# shellcheck disable=SC2086
NODE_PATH=$work/node_modules node "$here/bench.js" "$rounds" $specs
