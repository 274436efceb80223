#!/bin/bash
# count_tb.sh PROG: faster variant of count.sh. Normal translation blocks; -d in_asm prints each
# TB's guest instructions when it is translated (one "0x<pc>:" line per instruction), -d exec,nochain
# prints one "Trace" line per TB execution with its start PC. awk keeps ninsn[start pc] (updated
# on every (re)translation) and adds it up per executed TB between marker_begin and marker_end.
PROG=$1
B=$(llvm-nm "$PROG" | awk '$3=="marker_begin"{print $1}')
E=$(llvm-nm "$PROG" | awk '$3=="marker_end"{print $1}')
OUT=$(mktemp)
{ nice -n 10 qemu-riscv32 -d in_asm,exec,nochain -D /dev/fd/3 "$PROG" 3>&1 1>"$OUT" ; } | \
  nice -n 10 env LC_ALL=C mawk -v B="$B" -v E="$E" '
    /^Trace/ { pc = substr($4, 11, 8);
               if (st == 1) { if (pc == E) st = 2; else n += ninsn[pc]; }
               else if (st == 0 && pc == B) { st = 1; n += ninsn[pc]; }
               next }
    /^IN:/ { inblk = 1; k = 0; first = ""; next }
    inblk && /^0x/ { if (k == 0) first = substr($1, 3, 8); k++; next }
    inblk && /^$/ { if (first != "") ninsn[first] = k; inblk = 0; next }
    END { print "counted " n " state " st }'
sed 's/^/prog: /' "$OUT"; rm -f "$OUT"
