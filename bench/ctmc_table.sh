#!/usr/bin/env bash
# The CTMC benchmark table of issue 11, in one run (not a test):
#
#   [PARTS=1|2|12] [ROWS=small|mid|all] bench/ctmc_table.sh [TIMEOUT]   (after
#   cargo build --release -p saturn-cli && cargo build --release -p saturn-ctmc --example symbolic_bench)
#
# Part 1, per model and size: states, nonzeros, memory of R as CSR and as an EV*MxD (plus the
# split-point cache), and CPU seconds per Gauss-Seidel iteration of an explicit CSC sweep, the
# plain two-phase sweep (Figures 6.3-6.4) and the cached one (Figures 6.6-6.7): the
# `symbolic_bench` example, one instance per call under TIMEOUT (default 300 s).
# Part 2 (ROWS=small: the smaller sizes, ROWS=mid: kanban t=6, fms n=7-8, polling N=18, cluster
# N=256, ROWS=all: every size), the whole run `saturn check MODEL --props FILE --prop K` (a steady-state property)
# with each engine, and PRISM 4.10's sparse engine with Gauss-Seidel (`-sparse -gs`; its default
# Jacobi does not converge on kanban) and hybrid engine with backward Gauss-Seidel (`-hybrid
# -bgs`) on the same model when $PRISM (its bin/prism launcher) is set: wall seconds and peak MiB (`/usr/bin/time`), `-` past TIMEOUT.
# Models come from $CTMC (default ../shared/benchmarks/ctmc); polling N >= 16 from $POLLING (PRISM's
# benchmark files pollN.sm, e.g. from prismmodelchecker/prism-benchmarks); missing files are skipped.
set -uo pipefail
TIMEOUT=${1:-300}
HERE=$(cd "$(dirname "$0")/.." && pwd)
T=${CARGO_TARGET_DIR:-$HERE/target}/release
SATURN=$T/saturn
BENCH=$T/examples/symbolic_bench
CTMC=${CTMC:-$HERE/../shared/benchmarks/ctmc}
POLLING=${POLLING:-}
PRISM=${PRISM:-}

PARTS=${PARTS:-12}
[[ $PARTS == *1* ]] && echo "## Part 1: R and time per Gauss-Seidel iteration (symbolic_bench)"
[[ $PARTS == *1* ]] && for inst in kanban:t=4 kanban:t=5 kanban:t=6 kanban:t=7 fms:n=5 fms:n=6 fms:n=7 fms:n=8 fms:n=9 \
    polling:14 polling:16 polling:18 polling:20 cluster:N=64 cluster:N=128 cluster:N=256; do
    (cd "$HERE" && timeout "$TIMEOUT" "$BENCH" --iters 3 "$inst" 2>&1 | tail -n +2) ||
        echo "$inst: not finished within ${TIMEOUT} s"
done

# whole LABEL MODEL PROPS CONST PROP
whole() {
    local label=$1 model=$2 props=$3 consts=$4 prop=${5:-1}
    [ -f "$model" ] || { echo "$label: $model missing, skipped"; return; }
    local line="$label"
    for e in sparse symbolic; do
        local out
        out=$( { /usr/bin/time -f "TIME %e %M" timeout "$TIMEOUT" "$SATURN" check "$model" --props "$props" \
            --prop "$prop" ${consts:+--const "$consts"} --engine "$e" --timeout "$TIMEOUT"; } 2>&1 )
        local it t m
        it=$(printf '%s\n' "$out" | grep -o '([0-9]* iterations' | grep -o '[0-9]*' | head -1)
        read -r t m < <(printf '%s\n' "$out" | awk '/^TIME/ {print $2, $3}')
        if printf '%s\n' "$out" | grep -q '^Result:'; then
            line="$line | saturn $e ${t} s $((m / 1024)) MiB ${it} it"
        else
            line="$line | saturn $e -"
        fi
    done
    if [ -n "$PRISM" ]; then
        for e in "sparse -gs" "hybrid -bgs"; do
            local out t m it
            out=$( { /usr/bin/time -f "TIME %e %M" timeout "$TIMEOUT" "$PRISM" "$model" "$props" -prop "$prop" \
                ${consts:+-const "$consts"} -${e% *} ${e#* } -javamaxmem 16g -cuddmaxmem 8g; } 2>&1 )
            read -r t m < <(printf '%s\n' "$out" | awk '/^TIME/ {print $2, $3}')
            it=$(printf '%s\n' "$out" | grep -oE '(Gauss-Seidel|Jacobi|Power method): [0-9]+ iterations' | grep -oE '[0-9]+' | head -1)
            if printf '%s\n' "$out" | grep -q '^Result:'; then
                line="$line | prism ${e% *} ${t} s $((m / 1024)) MiB ${it} it"
            else
                line="$line | prism ${e% *} -"
            fi
        done
    fi
    echo "$line"
}

[[ $PARTS == *2* ]] || exit 0
echo
echo "## Part 2: whole runs, steady-state property, wall s / peak MiB / iterations"
ROWS=${ROWS:-all}
if [ "$ROWS" = small ]; then
    for t in 4 5; do whole "kanban t=$t" "$CTMC/kanban/kanban.prism" "$CTMC/kanban/kanban.props" "t=$t"; done
    for n in 5 6; do whole "fms n=$n" "$CTMC/fms/fms.prism" "$CTMC/fms/fms.props" "n=$n"; done
    whole "polling N=14" "$CTMC/polling/polling.14.prism" "$CTMC/polling/polling.props" ""
    whole "polling N=16" "$POLLING/poll16.sm" "$CTMC/polling/polling.props" ""
    for n in 64 128; do whole "cluster N=$n" "$CTMC/cluster/cluster.prism" "$CTMC/cluster/cluster.props" "N=$n" 3; done
    exit 0
fi
if [ "$ROWS" = mid ]; then
    whole "kanban t=6" "$CTMC/kanban/kanban.prism" "$CTMC/kanban/kanban.props" "t=6"
    for n in 7 8; do whole "fms n=$n" "$CTMC/fms/fms.prism" "$CTMC/fms/fms.props" "n=$n"; done
    whole "polling N=18" "$POLLING/poll18.sm" "$CTMC/polling/polling.props" ""
    whole "cluster N=256" "$CTMC/cluster/cluster.prism" "$CTMC/cluster/cluster.props" "N=256" 3
    exit 0
fi
for t in 4 5 6 7; do whole "kanban t=$t" "$CTMC/kanban/kanban.prism" "$CTMC/kanban/kanban.props" "t=$t"; done
for n in 5 6 7 8 9; do whole "fms n=$n" "$CTMC/fms/fms.prism" "$CTMC/fms/fms.props" "n=$n"; done
whole "polling N=14" "$CTMC/polling/polling.14.prism" "$CTMC/polling/polling.props" ""
for n in 16 18 20; do whole "polling N=$n" "$POLLING/poll$n.sm" "$CTMC/polling/polling.props" ""; done
for n in 64 128 256; do whole "cluster N=$n" "$CTMC/cluster/cluster.prism" "$CTMC/cluster/cluster.props" "N=$n" 3; done
