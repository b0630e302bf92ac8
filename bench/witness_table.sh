#!/bin/sh
# EG witnesses side by side (thesis Tables 5.1-5.3's shape, issue 47): the lasso's length and the
# time of the formula (EG set + witness, the checker's own clock, median of 5 runs) by the walk
# of Figure 5.1 (--witness-method bfs) and by the shortest lasso (layers, the default auto;
# the column was named tcd before the closure with distances took that name), and
# the formula's time without --witness; the contest nets under ../shared/benchmarks/mcc.
# Usage: bench/witness_table.sh [SATURN] [MCC_DIR]
S=${1:-target/release/saturn}; M=${2:-../shared/benchmarks/mcc}
secs() { # model formula args... -> "steps median_seconds"
  model=$1; f=$2; shift 2
  for r in 1 2 3 4 5; do
    "$S" check "$M/$model" --ctl "$f" --json "$@" | python3 -c '
import json, sys
f = json.load(sys.stdin)["formulas"][0]
w = f.get("witness")
print(len(w["steps"]) - 1 if w else "-", f["seconds"])'
  done | sort -k2 -g | sed -n 3p
}
row() { # model formula [--deadlocks ...]
  model=$1; f=$2; shift 2
  none=$(secs "$model" "$f" "$@" | awk '{print $2}')
  bfs=$(secs "$model" "$f" "$@" --witness --witness-method bfs)
  tcd=$(secs "$model" "$f" "$@" --witness --witness-method layers)
  printf "%s\t%s %s\t%s\tbfs %s\ttcd %s\n" "$model" "$f" "$*" "$none" "$bfs" "$tcd"
}
row Philosophers-PT-000005 'EG Think_1 >= 1'
row Philosophers-PT-000005 'EG Think_1 >= 1' --deadlocks self-loop
row Railroad-PT-005 'EG pl_P31_1 >= 1'
row Railroad-PT-005 'EG pl_P31_1 >= 1' --deadlocks self-loop
row Philosophers-PT-000010 'EG Think_1 >= 1'
row Railroad-PT-010 'EG pl_P16_7 >= 1'
row Railroad-PT-010 'EG !(pl_P15_8 >= 1)'
row SharedMemory-PT-000010 'EG !(Ext_Mem_Acc_1_2 >= 1)'
row FMS-PT-00010 'EG M2 >= 1'
