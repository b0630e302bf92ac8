#!/bin/sh
# The shape of thesis Table 4.1 in one run: every SCC method side by side on the benchmark
# families, states in (terminal) SCCs, number of SCCs (where enumerated), time and peak memory
# of the whole process (/usr/bin/time -v), one row per (instance, query, method).
#
#   cargo build --release -p saturn-cli
#   sh bench/scc_table.sh [TIMEOUT_SECONDS] [INSTANCES...]
#
# Defaults: 60 s per run; instances philosophers:100 philosophers:500 philosophers:1000
# queens:8 queens:10 kanban:5 robin:10 robin:20. A run that times out prints "to".
# (cqn, leader and the two arbiters of the thesis's table are not generated yet.)
set -u
SATURN=${SATURN:-${CARGO_TARGET_DIR:-target}/release/saturn}
T=${1:-60}
[ $# -gt 0 ] && shift
INSTANCES=${*:-"philosophers:100 philosophers:500 philosophers:1000 queens:8 queens:10 kanban:5 robin:10 robin:20"}
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
