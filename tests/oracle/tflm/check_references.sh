#!/bin/sh
# Checks tflm_run against outputs TFLM itself wrote: for each <models>/reference/<model>/
# with input_K.bin and output_K.bin (made by TFLM), runs <models>/<model>.tflite on input_K.bin
# and compares the result with output_K.bin byte for byte.
#   check_references.sh <tflm_run> <models-dir>     e.g. <models-dir> = shared/models/mlperf-tiny
# Prints one line per input and "N identical, N differ, N failed"; exit 1 unless all identical.
set -u
tflm_run=$1
models=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
same=0 differ=0 failed=0
for dir in "$models"/reference/*/; do
  model=$(basename "$dir")
  for input in "$dir"input_*.bin; do
    k=${input##*input_}; k=${k%.bin}
    if "$tflm_run" "$models/$model.tflite" --inputs "$input" --outputs "$tmp/out.bin" >/dev/null 2>"$tmp/err"; then
      if cmp -s "$tmp/out.bin" "$dir/output_$k.bin"; then
        echo "$model $k identical"; same=$((same + 1))
      else
        echo "$model $k DIFFERS"; differ=$((differ + 1))
      fi
    else
      echo "$model $k tflm_run failed: $(head -1 "$tmp/err")"; failed=$((failed + 1))
    fi
  done
done
echo "$same identical, $differ differ, $failed failed"
[ $differ -eq 0 ] && [ $failed -eq 0 ]
