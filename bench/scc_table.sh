#!/bin/sh
# The shape of thesis Table 4.1 in one run: every SCC method side by side on the benchmark
# families, states in (terminal) SCCs, number of SCCs (where enumerated), time and peak memory
# of the whole process (/usr/bin/time -v), one row per (instance, query, method).
#
#   cargo build --release -p saturn-cli
#   sh bench/scc_table.sh [TIMEOUT_SECONDS] [INSTANCES...]
#
# Defaults: 60 s per run; the instances of the thesis's Table 4.1 (cqn, phil, queens, leader,
# arbiter1, arbiter2; our leader net is smaller per N than the thesis's, so larger N are used).
# A run that fails or times out prints "to".
set -u
SATURN=${SATURN:-${CARGO_TARGET_DIR:-target}/release/saturn}
T=${1:-60}
[ $# -gt 0 ] && shift
INSTANCES=${*:-"cqn:10 cqn:15 cqn:20 philosophers:100 philosophers:500 philosophers:1000
  queens:10 queens:11 queens:12 leader:6 leader:8 leader:10 arbiter1:10 arbiter1:15 arbiter1:20
  arbiter2:10 arbiter2:15 arbiter2:20 arbiter2:500"}
printf '%-18s %-9s %-9s %-12s %-10s %9s %9s\n' instance query method scc_states scc_count seconds peak_MiB
for inst in $INSTANCES; do
  for q in scc terminal; do
    if [ $q = scc ]; then methods="tc xb-sat lockstep"; flag=""; else methods="tc xb-sat xb-bfs"; flag="--terminal"; fi
    for m in $methods; do
      out=$( { /usr/bin/time -v timeout "$T" "$SATURN" scc "$inst" $flag --method "$m" --json; } 2>/tmp/scc_table.$$ )
      rc=$?
      mem=$(awk -F': ' '/Maximum resident set size/ {printf "%.1f", $2/1024}' /tmp/scc_table.$$)
      if [ $rc -ne 0 ]; then
        printf '%-18s %-9s %-9s %-12s %-10s %9s %9s\n' "$inst" $q $m - - to "$mem"
        continue
      fi
      echo "$out" | python3 -c '
import json, sys
d = json.load(sys.stdin)
s = d["scc_states"]
s = s if len(s) <= 6 else "%s.%se%d" % (s[0], s[1:3], len(s) - 1)
c = d["scc_count"]
print("%-18s %-9s %-9s %-12s %-10s %9.2f %9s" % (sys.argv[1], sys.argv[2], d["method"], s, "-" if c is None else c, d["seconds"], sys.argv[3]))
' "$inst" $q "$mem"
    done
  done
done
rm -f /tmp/scc_table.$$
