#!/bin/sh
# EG witnesses by the three methods (issue 47, thesis Tables 5.1-5.3's shape): the lasso's length
# and the formula's time (EG set + witness, the checker's own clock in --json; the median of
# $RUNS runs, default 1) and the process's peak memory (/usr/bin/time, the largest of the runs)
# by the walk of Figure 5.1 (bfs), distance layers (layers), the closure with distances (tcd,
# Figures 5.2-5.3) and the default (auto: layers within a budget, then tcd), each run cut at $T
# seconds (default 120); $METHODS narrows the list. With BEFORE set to
# another saturn binary, its tcd is measured in the same run as a fourth column (tcd-before).
# An argument NET checks `EG p >= 1` and `EG !(p >= 1)` for the net's first place p;
# NET|FORMULA that formula. Prints one tab-separated row per formula; a cell is
# "METHOD RESULT STEPS SECONDS PEAK_MB" or "METHOD timeout".
# Usage: [RUNS=5] [BEFORE=old/saturn] bench/witness_methods.sh SATURN MCC_DIR NET[|FORMULA]...
S=${1:-target/release/saturn}; M=${2:-../shared/benchmarks/mcc}; T=${T:-120}; RUNS=${RUNS:-1}
shift 2 2>/dev/null
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cell() { # binary method net formula
  i=0
  : >"$tmp/runs"
  while [ "$i" -lt "$RUNS" ]; do
    i=$((i + 1))
    /usr/bin/time -f %M -o "$tmp/mem" timeout "$T" "$1" check "$M/$3" --ctl "$4" --json --witness \
      --witness-method "$2" >"$tmp/out" 2>/dev/null || { echo timeout; return; }
    python3 -c '
import json, sys
f = json.load(open(sys.argv[1]))["formulas"][0]
w = f.get("witness")
kb = open(sys.argv[2]).read().split()[-1]
print(f["result"], len(w["steps"]) - 1 if w else "-", f["seconds"], kb)' "$tmp/out" "$tmp/mem" \
      >>"$tmp/runs" 2>/dev/null || { echo timeout; return; }
  done
  python3 -c '
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
secs = statistics.median(float(r[2]) for r in rows)
mb = max(int(r[3]) for r in rows) / 1024
print("%s %s %.4f %.0f" % (rows[-1][0], rows[-1][1], secs, mb))' "$tmp/runs"
}
row() { # net formula
  net=$1; f=$2
  printf "%s\t%s" "$net" "$f"
  for m in ${METHODS:-bfs layers tcd auto}; do
    printf "\t%s %s" "$m" "$(cell "$S" "$m" "$net" "$f")"
  done
  if [ -n "$BEFORE" ]; then
    printf "\t%s %s" tcd-before "$(cell "$BEFORE" tcd "$net" "$f")"
  fi
  printf "\n"
}
for a in "$@"; do
  net=${a%%|*}
  if [ "$net" != "$a" ]; then row "$net" "${a#*|}"; continue; fi
  p=$(grep -o '<place id="[^"]*"' "$M/$net/model.pnml" | head -1 | sed 's/.*id="//; s/"$//')
  row "$net" "EG \"$p\" >= 1"
  row "$net" "EG !(\"$p\" >= 1)"
done
