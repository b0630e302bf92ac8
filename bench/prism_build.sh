#!/usr/bin/env bash
# State-space construction of PRISM CTMCs: `saturn statespace` against PRISM's own model
# construction (symbolic engine, MTBDDs) on the same machine, whole process, medians.
#
#   bench/prism_build.sh SATURN [RUNS] [TIMEOUT]
#
# SATURN: the release binary (target/release/saturn). PRISM is taken from $PRISM (its
# bin/prism launcher; skipped when unset). Models come from $CTMC (default ../shared/benchmarks/ctmc)
# and, for polling N >= 16 (not in that folder), from $POLLING (a directory holding PRISM's
# benchmark files pollN.sm, e.g. extracted from prismmodelchecker/prism-benchmarks); rows whose
# files are missing are skipped. Prints one line per (model, tool): states, seconds, peak MiB,
# and for PRISM its reported model-construction time and MTBDD nodes of the rate matrix.
set -uo pipefail
SATURN=${1:?usage: bench/prism_build.sh SATURN [RUNS] [TIMEOUT]}
RUNS=${2:-3}
TIMEOUT=${3:-600}
HERE=$(cd "$(dirname "$0")/.." && pwd)
CTMC=${CTMC:-$HERE/../shared/benchmarks/ctmc}
POLLING=${POLLING:-}
PRISM=${PRISM:-}

median() { sort -g | awk '{a[NR]=$1} END {print (NR ? a[int((NR+1)/2)] : "-")}'; }

# run_rows NAME FILE CONST
row() {
    local name=$1 file=$2 consts=$3
    [ -f "$file" ] || { echo "$name: $file missing, skipped"; return; }
    local ts=() ms=() states=
    for _ in $(seq "$RUNS"); do
        local out
        out=$( { /usr/bin/time -f "TIME %e %M" timeout "$TIMEOUT" "$SATURN" statespace "$file" \
            ${consts:+--const "$consts"} --timeout "$TIMEOUT" --json; } 2>&1 )
        states=$(printf '%s\n' "$out" | grep -o '"states": *"\?[0-9]*' | head -1 | grep -o '[0-9]*$')
        read -r t m < <(printf '%s\n' "$out" | awk '/^TIME/ {print $2, $3}')
        ts+=("$t"); ms+=("$m")
    done
    printf '%-22s saturn  states %-10s %8s s %8.1f MiB\n' "$name" "${states:--}" \
        "$(printf '%s\n' "${ts[@]}" | median)" \
        "$(echo "$(printf '%s\n' "${ms[@]}" | median) / 1024" | bc -l)"
    [ -n "$PRISM" ] || return
    local pts=() pms=() pcon=() nodes=
    for _ in $(seq "$RUNS"); do
        local out
        out=$( { /usr/bin/time -f "TIME %e %M" timeout "$TIMEOUT" "$PRISM" "$file" \
            ${consts:+-const "$consts"} -javamaxmem 16g -cuddmaxmem 8g; } 2>&1 )
        read -r t m < <(printf '%s\n' "$out" | awk '/^TIME/ {print $2, $3}')
        pts+=("$t"); pms+=("$m")
        pcon+=("$(printf '%s\n' "$out" | awk '/Time for model construction/ {print $5}')")
        nodes=$(printf '%s\n' "$out" | awk '/^Rate matrix:/ {print $3}')
        states=$(printf '%s\n' "$out" | awk '/^States:/ {print $2}')
    done
    printf '%-22s prism   states %-10s %8s s %8.1f MiB  construction %s s  MTBDD %s nodes\n' \
        "$name" "${states:--}" "$(printf '%s\n' "${pts[@]}" | median)" \
        "$(echo "$(printf '%s\n' "${pms[@]}" | median) / 1024" | bc -l)" \
        "$(printf '%s\n' "${pcon[@]}" | median)" "${nodes:--}"
}

for t in 5 6 7 8; do row "kanban t=$t" "$CTMC/kanban/kanban.prism" "t=$t"; done
for n in 6 7 8 9 10; do row "fms n=$n" "$CTMC/fms/fms.prism" "n=$n"; done
for n in 16 17 18 19 20 21 22; do row "polling N=$n" "$POLLING/poll$n.sm" ""; done
for n in 64 128 256 512; do row "cluster N=$n" "$CTMC/cluster/cluster.prism" "N=$n"; done
