#!/usr/bin/env bash
# Reference cases for the TFLite models of a folder (tests/models/fidelity, tests/models/memory),
# from TensorFlow Lite Micro's reference kernels (tests/oracle/tflm: tflm_run, built from a
# tflite-micro snapshot by scripts/build_tflm_oracle.sh): reference/<model>/input_K.bin
# (random, seed K) and output_K.bin (what TFLM computed from it), K = 0..3, the layout of
# ../shared/models/mlperf-tiny/reference.
#   tests/models/make_tflm_references.sh <out-dir of build_tflm_oracle.sh>/build/tflm_run tests/models/fidelity
set -euo pipefail
tflm_run=$(realpath "${1:?usage: make_tflm_references.sh path/to/tflm_run FOLDER}")
cd "${2:?usage: make_tflm_references.sh path/to/tflm_run FOLDER}"
# A model of several inputs gets input_K_I.bin, input I of case K.
for model in *.tflite; do
  name=${model%.tflite}
  mkdir -p "reference/$name"
  count=$("$tflm_run" "$model" --describe | grep -c '^input')
  for k in 0 1 2 3; do
    inputs=("reference/$name/input_$k.bin")
    if [ "$count" -gt 1 ]; then
      inputs=()
      for ((i = 0; i < count; ++i)); do inputs+=("reference/$name/input_${k}_$i.bin"); done
    fi
    "$tflm_run" "$model" --random "$k" --inputs "${inputs[@]}" --outputs "reference/$name/output_$k.bin" > /dev/null
  done
done
