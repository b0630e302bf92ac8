#!/bin/sh
# EG witnesses by the three methods (issue 47, thesis Tables 5.1-5.3's shape): the lasso's length
# and the formula's time (EG set + witness, the checker's own clock in --json, one run) by the
# walk of Figure 5.1 (bfs), distance layers (layers, what auto runs) and the closure with
# distances (tcd, Figures 5.2-5.3), each run cut at $T seconds (default 120). An argument NET
# checks `EG p >= 1` and `EG !(p >= 1)` for the net's first place p; NET|FORMULA that formula.
# Prints one tab-separated row per formula.
# Usage: bench/witness_methods.sh SATURN MCC_DIR NET[|FORMULA]...
S=${1:-target/release/saturn}; M=${2:-../shared/benchmarks/mcc}; T=${T:-120}
shift 2 2>/dev/null
row() { # net formula
  net=$1; f=$2
  printf "%s\t%s" "$net" "$f"
  for m in bfs layers tcd; do
    r=$(timeout "$T" "$S" check "$M/$net" --ctl "$f" --json --witness --witness-method "$m" 2>/dev/null |
      python3 -c '
import json, sys
f = json.load(sys.stdin)["formulas"][0]
w = f.get("witness")
print("%s %s %.4f" % (f["result"], len(w["steps"]) - 1 if w else "-", f["seconds"]))' 2>/dev/null)
    printf "\t%s %s" "$m" "${r:-timeout}"
  done
  printf "\n"
}
for a in "$@"; do
  net=${a%%|*}
  if [ "$net" != "$a" ]; then row "$net" "${a#*|}"; continue; fi
  p=$(grep -o '<place id="[^"]*"' "$M/$net/model.pnml" | head -1 | sed 's/.*id="//; s/"$//')
  row "$net" "EG \"$p\" >= 1"
  row "$net" "EG !(\"$p\" >= 1)"
done
