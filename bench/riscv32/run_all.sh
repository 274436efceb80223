#!/bin/bash
# Instructions of one inference of the int8 MLPerf Tiny models compiled by two aotc builds
# for `riscv32` (RV32IMAC), run as freestanding programs under QEMU user mode (README.md).
#   AOTC_BASE=<aotc> AOTC_NEW=<aotc> bench/riscv32/run_all.sh [model ...]
# Work files go to $WORK (default /tmp/aotc-riscv32); results to $WORK/logs/results.txt.
set -u
here=$(cd "$(dirname "$0")" && pwd)
WORK=${WORK:-/tmp/aotc-riscv32}
mkdir -p "$WORK" && cp "$here"/*.c "$here"/*.sh "$here"/bin2c.py "$WORK"/ && cp -r "$here"/inc "$WORK"/
declare -A AOTC=([base]=$(realpath "${AOTC_BASE:?an aotc binary}") [new]=$(realpath "${AOTC_NEW:?an aotc binary}"))
cd "$WORK"
MODELS=${*:-"kws_ref_model ad01_int8 pretrainedResnet_quant vww_96_int8"}
MD=$here/../../../shared/models/mlperf-tiny
CF="--target=riscv32-unknown-elf -march=rv32imac -mabi=ilp32 -O2 -ffreestanding -nostdlib -static -fuse-ld=lld"
mkdir -p out bin logs; rm -f logs/results.txt
clang $CF -Wno-unused-command-line-argument -fno-builtin -c libc.c -o bin/libc.o || exit 1
clang $CF -Wno-unused-command-line-argument -c start.c -o bin/start.o || exit 1
# sanity check of the counting methods: expect counted 3004 (see loop.c)
clang $CF -fno-builtin -o bin/loop loop.c bin/start.o bin/libc.o && { ./count.sh bin/loop; ./count_tb.sh bin/loop; } | tee logs/loop.txt
for m in $MODELS; do
  /usr/bin/python3 bin2c.py $MD/reference/$m/input_0.bin $MD/reference/$m/output_0.bin bin/data_$m.h
  for v in base new; do
    o=out/${v}_$m; rm -rf $o
    "${AOTC[$v]}" compile $MD/$m.tflite -o $o --name m --target riscv32 --pool sram:512K > logs/compile_${v}_$m.txt 2>&1 || { echo "$v $m: compile failed"; cat logs/compile_${v}_$m.txt; continue; }
    # check the embedded sizes match the header
    isz=$(grep -E '^#define M_INPUT_.*_SIZE' $o/m.h | awk '{print $3}'); osz=$(grep -E '^#define M_OUTPUT_.*_SIZE' $o/m.h | awk '{print $3}')
    [ "$isz" = "$(stat -c %s $MD/reference/$m/input_0.bin)" ] && [ "$osz" = "$(stat -c %s $MD/reference/$m/output_0.bin)" ] || echo "$v $m: size mismatch $isz $osz"
    TF=$(cat $o/m.cflags | tr '\n' ' ')
    echo "$v $m: target cflags: $TF"
    srcs="$o/m.c $o/m_constants.c $o/aotc_runtime.c"
    for c in run cal; do
      d=""; [ $c = cal ] && d=-DCALIBRATE
      cp bin/data_$m.h $o/data.h
      clang $CF $TF -isystem inc -I$o $d -o bin/${v}_${m}_$c main.c $srcs bin/start.o bin/libc.o 2> logs/build_${v}_${m}_$c.txt || { echo "$v $m $c: build failed"; cat logs/build_${v}_${m}_$c.txt; continue 2; }
    done
    llvm-size bin/${v}_${m}_run > logs/size_${v}_$m.txt
    ./count_tb.sh bin/${v}_${m}_cal > logs/count_${v}_${m}_cal.txt
    ./count_tb.sh bin/${v}_${m}_run > logs/count_${v}_${m}_run.txt
    # cross-check with the slow one-instruction-per-TB method for the small models
    if [ "${SINGLESTEP_CHECK:-1}" = 1 ] && { [ $m = kws_ref_model ] || [ $m = ad01_int8 ]; }; then
      ./count.sh bin/${v}_${m}_run > logs/count_ss_${v}_${m}_run.txt
      echo "singlestep-check $m $v: $(grep counted logs/count_ss_${v}_${m}_run.txt)" | tee -a logs/results.txt
    fi
    cal=$(awk '/^counted/{print $2}' logs/count_${v}_${m}_cal.txt)
    raw=$(awk '/^counted/{print $2}' logs/count_${v}_${m}_run.txt)
    res=$(grep -o 'match\|mismatch\|status!=0' logs/count_${v}_${m}_run.txt | head -1)
    # dummy_run itself executes 2 instructions (li a0,0; ret): run call = raw - cal + 2
    echo "RESULT $m $v raw=$raw cal=$cal run_call=$((raw - cal + 2)) $res" | tee -a logs/results.txt
  done
done
