#!/usr/bin/env bash
# Transient and time-bounded CSL side by side with PRISM (issue 45: "Benchmarks side by side with
# PRISM 4.10 (its fastest engine) on the transient and time-bounded rows of the corpus"). Not a test.
#
#   [PRISM=/path/to/prism/bin/prism] [RUNS=3] [ROWS=small|all] bench/ctmc_transient.sh [TIMEOUT]
#   (after cargo build --release -p saturn-cli)
#
# One row per model, size and property: `saturn check MODEL --props FILE --const C --prop K` with
# the default flags (default engine, default epsilon), and PRISM with `-sparse` and `-hybrid`
# (its default engine for CTMCs) on the same files: median wall seconds over RUNS runs and the
# peak RSS in MiB of the median run (`/usr/bin/time`), and each tool's result (Saturn's interval,
# PRISM's number), `-` past TIMEOUT. Models come from $CTMC (default ../shared/benchmarks/ctmc),
# tandem from $TANDEM (PRISM's prism-examples/ctmcs/tandem); the kanban and fms properties are
# ours (bench/props/, the corpus has steady-state ones only); missing files are skipped.
set -uo pipefail
TIMEOUT=${1:-300}
RUNS=${RUNS:-3}
HERE=$(cd "$(dirname "$0")/.." && pwd)
T=${CARGO_TARGET_DIR:-$HERE/target}/release
SATURN=$T/saturn
CTMC=${CTMC:-$HERE/../shared/benchmarks/ctmc}
TANDEM=${TANDEM:-}
PRISM=${PRISM:-}
PROPS=$HERE/bench/props

# median_run CMD...: prints "seconds KiB" of the median run; the output of the last run is
# left in the file $LAST
LAST=$(mktemp)
trap 'rm -f "$LAST" "$LAST.tm"' EXIT
median_run() {
    local runs=() i out t m
    for ((i = 0; i < RUNS; i++)); do
        out=$( { /usr/bin/time -f "TIME %e %M" timeout "$TIMEOUT" "$@"; } 2>&1 )
        read -r t m < <(printf '%s\n' "$out" | awk '/^TIME/ {print $2, $3}')
        runs+=("$t $m")
        printf '%s\n' "$out" > "$LAST"
    done
    printf '%s\n' "${runs[@]}" | sort -n | sed -n "$(((RUNS + 1) / 2))p"
}

row() {
    local label=$1 model=$2 props=$3 consts=$4 prop=$5
    [ -f "$model" ] && [ -f "$props" ] || { echo "| $label | missing files, skipped |"; return; }
    local line="| $label" t m res
    median_run "$SATURN" check "$model" --props "$props" --prop "$prop" \
        ${consts:+--const "$consts"} --timeout "$TIMEOUT" > "$LAST.tm"
    read -r t m < "$LAST.tm"
    if res=$(grep -m1 '^Result:' "$LAST"); then
        local b
        b=$(grep -m1 '^Bounds:' "$LAST" | sed -E 's/^Bounds: (\[[^]]*\]).*/\1/')
        line="$line | ${t} s, $((m / 1024)) MiB | ${b:-$(echo "$res" | awk '{print $2}')}"
    else
        line="$line | - | -"
    fi
    if [ -n "$PRISM" ]; then
        local e
        for e in sparse hybrid; do
            median_run "$PRISM" "$model" "$props" -prop "$prop" \
                ${consts:+-const "$consts"} -$e -javamaxmem 16g -cuddmaxmem 8g > "$LAST.tm"
            read -r t m < "$LAST.tm"
            if res=$(grep -m1 '^Result:' "$LAST"); then
                line="$line | ${t} s, $((m / 1024)) MiB | $(echo "$res" | awk '{print $2}')"
            else
                line="$line | - | -"
            fi
        done
    fi
    echo "$line |"
}

echo "| row | saturn (default) | saturn result | PRISM -sparse | PRISM result | PRISM -hybrid | PRISM result |"
echo "|---|---|---|---|---|---|---|"
# the rows: label, model, properties, constants, property indices (ROWS=small: the smallest
# size of each family)
ROWS=${ROWS:-all}
rows() {
    local n mc t c
    if [ "$ROWS" = small ]; then
        echo "cluster N=32|$CTMC/cluster/cluster.prism|$CTMC/cluster/cluster.props|N=32,T=2000,t=20|1 2 4 5"
        echo "embedded MAX_COUNT=4|$CTMC/embedded/embedded.prism|$CTMC/embedded/embedded.props|MAX_COUNT=4,T=12|2 3 6"
        echo "polling N=14|$CTMC/polling/polling.14.prism|$CTMC/polling/polling.props|T=16|3 4 5"
        echo "kanban t=4|$CTMC/kanban/kanban.prism|$PROPS/kanban_transient.csl|t=4,T=10|1 2 3"
        echo "fms n=5|$CTMC/fms/fms.prism|$PROPS/fms_transient.csl|n=5,T=10|1 2"
        [ -n "$TANDEM" ] && echo "tandem c=255|$TANDEM/tandem.sm|$TANDEM/tandem.csl|c=255,T=1|2 5"
        return
    fi
    for n in 32 64 128; do
        echo "cluster N=$n|$CTMC/cluster/cluster.prism|$CTMC/cluster/cluster.props|N=$n,T=2000,t=20|1 2 4 5"
    done
    for mc in 4 8; do
        echo "embedded MAX_COUNT=$mc|$CTMC/embedded/embedded.prism|$CTMC/embedded/embedded.props|MAX_COUNT=$mc,T=12|2 3 6"
    done
    echo "polling N=14|$CTMC/polling/polling.14.prism|$CTMC/polling/polling.props|T=16|3 4 5"
    for t in 4 5; do
        echo "kanban t=$t|$CTMC/kanban/kanban.prism|$PROPS/kanban_transient.csl|t=$t,T=10|1 2 3"
    done
    for n in 5 6; do
        echo "fms n=$n|$CTMC/fms/fms.prism|$PROPS/fms_transient.csl|n=$n,T=10|1 2"
    done
    if [ -n "$TANDEM" ]; then
        for c in 255 1023; do
            echo "tandem c=$c|$TANDEM/tandem.sm|$TANDEM/tandem.csl|c=$c,T=1|2 5"
        done
    fi
}
while IFS='|' read -r label model props consts ps; do
    for p in $ps; do
        row "$label prop $p" "$model" "$props" "$consts" "$p"
    done
done < <(rows)
