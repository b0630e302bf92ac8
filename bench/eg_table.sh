#!/bin/sh
# EG methods side by side (thesis Table 3.2's shape): whole-process time and peak memory of
# `saturn check` for EG by breadth-first EGtrad and by the transitive closure, without and with
# a weak fairness set: Emerson-Lei with breadth-first EU inside (fair-el-bfs, the breadth-first
# fair EG), Emerson-Lei with constrained saturation (fair-el), the closure (fair-tc, Claim 3).
# Usage: bench/eg_table.sh [SATURN] [TIMEOUT]
S=${1:-target/release/saturn}; T=${2:-60}
one() { # label model formula args...
  label=$1; model=$2; f=$3; shift 3
  /usr/bin/time -f "%e %M" -o /tmp/eg_table.$$ timeout $T "$S" check "$model" --ctl "$f" "$@" >/tmp/eg_out.$$ 2>&1
  rc=$?; r=$(awk '{printf "%.2f s / %.0f MB", $1, $2/1024}' /tmp/eg_table.$$ | tail -1)
  v=$(awk '{print $2}' /tmp/eg_out.$$ | head -1)
  [ $rc -eq 0 ] || { r="> $T s"; v=-; }
  printf "%s\t%s\t%s\t%s\n" "$model" "$label" "$v" "$r"
}
run() { # model formula fairness
  one trad "$1" "$2" --eg-method trad
  one tc "$1" "$2" --eg-method tc
  one fair-el-bfs "$1" "$2" --fair "$3" --fair-method el --eu-method trad
  one fair-el "$1" "$2" --fair "$3" --fair-method el
  one fair-tc "$1" "$2" --fair "$3" --fair-method tc
}
run leader:6 'EG Lead_0 = 0' 'Wait_0 = 1'
run leader:8 'EG Lead_0 = 0' 'Wait_0 = 1'
run philosophers:50 'EG HasR_0 = 0' 'HasL_0 = 1'
run philosophers:100 'EG HasR_0 = 0' 'HasL_0 = 1'
run robin:10 'EG true' 'pask_1 = 1'
run robin:50 'EG true' 'pask_1 = 1'
run fms:10 'EG P1s = 0' 'P1wM1 = 1'
run kanban:20 'EG pout4 = 0' 'pm1 = 1'
run queens:8 'EG true' 'p_1_0 = 1'
rm -f /tmp/eg_table.$$ /tmp/eg_out.$$
