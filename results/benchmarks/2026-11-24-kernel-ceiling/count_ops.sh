#!/bin/bash
# Vector instructions in the AVX-512 slot kernel as built: objdump of
# uts::sha1::child_ids_avx512(SlotBatch const&, Ids&) in uts-sha1-rate.
# usage: count_ops.sh BUILD_DIR
objdump -d --no-show-raw-insn -C "$1/uts-sha1-rate" |
  awk '/<uts::sha1::child_ids_avx512\(uts::sha1::SlotBatch const&, uts::sha1::Ids&\)>:/,/^$/' |
  awk '$2 ~ /^v/ && $2 != "vzeroupper" {n[$2]++; t++} END {for (k in n) printf "%-12s %d\n", k, n[k]; printf "total        %d\n", t}' | sort -k2 -n -r
