#!/bin/sh
# EU methods side by side (thesis Table 3.1's shape): whole-process time and peak memory of
# `saturn check` per --eu-method, on leader, dining philosophers, round robin, FMS and queens.
# Usage: bench/eu_table.sh [SATURN] [TIMEOUT]
# (a benchmark, not a test; run on a release build: cargo build --release -p saturn-cli)
S=${1:-target/release/saturn}; T=${2:-60}
run() { # model formula
  for m in trad sat cons-nsf-pot cons-nsf-rch cons-sat-pot cons-sat-rch; do
    /usr/bin/time -f "%e %M" -o /tmp/eu_table.$$ timeout $T "$S" check "$1" --eu-method $m --ctl "$2" >/dev/null 2>&1
    rc=$?; r=$(awk '{printf "%.2f s / %.0f MB", $1, $2/1024}' /tmp/eu_table.$$ | tail -1)
    [ $rc -eq 0 ] || r="> $T s"
    printf "%s\t%s\t%s\n" "$1" "$m" "$r"
  done
}
sum() { # prefix first last: "prefix_first + ... + prefix_last"
  seq "$2" "$3" | sed "s/^/$1_/" | paste -sd+ | sed 's/+/ + /g'
}
run leader:8 'E [Lead_0 = 0 U Lead_1 = 1]'
run philosophers:100 "E [Idle_0 = 1 | HasL_0 = 0 U $(sum HasL 0 99) = 100]"
run robin:20 'E [true U pok_19 = 1 & buffull_0 = 1 & buffull_10 = 1]'
run fms:10 'E [true U P1s = 10 & P2s = 10 & P3s = 10]'
run queens:10 "E [true U $(seq 1 10 | sed 's/^/p_/; s/$/_0/' | paste -sd+ | sed 's/+/ + /g') = 0]"
rm -f /tmp/eu_table.$$
