#!/usr/bin/env python3
"""The cost of shortest LTL counterexamples (docs/ltl.md): on developer instances of
../shared/benchmarks/mcc, four LTL formulas over the instance's first transitions (file order:
`G F enabled(t1)`, `F G !enabled(t2)`, `G (enabled(t1) -> F enabled(t2))`,
`[!enabled(t3) U enabled(t2)]`), `saturn check DIR --ltl ... --json` three ways: no
counterexample (default portfolio), `--witness` (default portfolio: shortest counterexamples
from the symbolic product), `--witness --ltl-method explicit` (the depth-first search's
counterexamples). Prints wall time and the total steps of the counterexamples per instance.

    cargo build --release -p saturn-cli
    python3 bench/ltl_witness.py [--saturn target/release/saturn] [INSTANCE ...]
"""
import argparse
import json
import pathlib
import re
import subprocess
import time

DEFAULT = ["Philosophers-PT-000005", "CircularTrains-PT-012", "DatabaseWithMutex-PT-02",
           "LamportFastMutEx-PT-2", "SimpleLoadBal-PT-02", "Railroad-PT-005",
           "SharedMemory-PT-000005", "Dekker-PT-010", "FMS-PT-00002"]


def transitions(d):
    text = (d / "model.pnml").read_text()
    return re.findall(r'<transition\s+id="([^"]+)"', text)


def run(saturn, d, formulas, extra):
    cmd = [saturn, "check", str(d), "--json", "--timeout", "120"] + extra
    for f in formulas:
        cmd += ["--ltl", f]
    t0 = time.time()
    p = subprocess.run(cmd, capture_output=True, text=True)
    secs = time.time() - t0
    v = json.loads(p.stdout)
    res = v.get("formulas", [])
    false = sum(1 for r in res if r["result"] is False)
    steps = sum(len(r["witness"]["steps"]) - 1 for r in res if r.get("witness"))
    shortest = sum(1 for r in res if r.get("witness") and r["witness"]["shortest"])
    return secs, false, steps, shortest


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--saturn", default="target/release/saturn")
    ap.add_argument("--dir", default=str(pathlib.Path(__file__).resolve().parents[2]
                                         / "shared" / "benchmarks" / "mcc"))
    ap.add_argument("instances", nargs="*")
    a = ap.parse_args()
    print("| instance | FALSE | verdicts only | shortest (steps) | explicit (steps) |")
    print("| --- | --- | --- | --- | --- |")
    for name in a.instances or DEFAULT:
        d = pathlib.Path(a.dir) / name
        t = transitions(d)
        t1, t2, t3 = t[0], t[1 % len(t)], t[2 % len(t)]
        fs = [f"G F enabled({t1})", f"F G !enabled({t2})",
              f"G (enabled({t1}) -> F enabled({t2}))", f"[!enabled({t3}) U enabled({t2})]"]
        s0, n0, _, _ = run(a.saturn, d, fs, [])
        s1, n1, k1, sh1 = run(a.saturn, d, fs, ["--witness"])
        s2, n2, k2, _ = run(a.saturn, d, fs, ["--witness", "--ltl-method", "explicit"])
        assert n0 == n1 == n2, (name, n0, n1, n2)
        print(f"| {name} | {n0} of 4 | {s0:.2f} s | {s1:.2f} s ({k1}; {sh1} shortest) "
              f"| {s2:.2f} s ({k2}) |", flush=True)


if __name__ == "__main__":
    main()
