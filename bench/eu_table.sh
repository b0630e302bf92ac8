#!/bin/sh
# EU methods side by side (thesis Table 3.1's shape): whole-process time and peak memory of
# `saturn check` per --eu-method. Usage: bench/eu_table.sh [SATURN] [TIMEOUT]
# (a benchmark, not a test; run on a release build: cargo build --release -p saturn-cli)
S=${1:-target/release/saturn}; T=${2:-60}
run() { # model formula
  for m in trad sat cons-nsf-pot cons-nsf-rch cons-sat-pot cons-sat-rch; do
    /usr/bin/time -f "%e %M" -o /tmp/eu_table.$$ timeout $T "$S" check "$1" --eu-method $m --ctl "$2" >/dev/null 2>&1
    rc=$?; r=$(cat /tmp/eu_table.$$ | tail -1)
    [ $rc -eq 0 ] || r="timeout/err($rc)"
    printf "%s\t%s\t%s\n" "$1" "$m" "$r"
  done
}
run philosophers:100 'E [Idle_0 = 1 U HasL_0 = 1 & HasR_0 = 1]'
run robin:20 'E [pwait_0 = 0 U pok_1 = 1]'
run kanban:20 'E [pm1 >= 1 U pout4 = 20]'
rm -f /tmp/eu_table.$$
