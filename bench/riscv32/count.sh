#!/bin/bash
# count.sh PROG: run PROG under qemu-riscv32 with one instruction per translation block
# (-singlestep) and exec logging without TB chaining (-d exec,nochain), so every executed
# instruction gives one "Trace" line "[cs_base/PC/flags/cflags]".  The log goes to a pipe (never
# stored); grep -n picks out the line numbers of the executions of marker_begin and marker_end.
# Prints the program's stdout, then: counted = instructions from the first execution of
# marker_begin (inclusive) to the first execution of marker_end after it (exclusive).
PROG=$1
B=$(llvm-nm "$PROG" | awk '$3=="marker_begin"{print $1}')
E=$(llvm-nm "$PROG" | awk '$3=="marker_end"{print $1}')
OUT=$(mktemp)
{ nice -n 10 qemu-riscv32 -singlestep -d exec,nochain -D /dev/fd/3 "$PROG" 3>&1 1>"$OUT" ; } | \
  nice -n 10 env LC_ALL=C grep -n -F -e "[00000000/$B/" -e "[00000000/$E/" | \
  awk -F: -v B="$B" -v E="$E" '
    index($0, "/" B "/") && b == "" { b = $1 }
    index($0, "/" E "/") && b != "" && e == "" { e = $1 }
    END { print "counted " (e - b) " begin_line " b " end_line " e }'
sed 's/^/prog: /' "$OUT"; rm -f "$OUT"
