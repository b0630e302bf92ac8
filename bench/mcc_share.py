#!/usr/bin/env python3
"""The contest share on ../shared/benchmarks/mcc: `saturn mcc DIR --examination E --timeout T`
per instance and examination (the five formula examinations and GlobalProperties), answers
compared with oracle.txt. Prints agreed / disagreed / not answered per examination, and the
disagreements and unanswered ids.

    cargo build --release -p saturn-cli
    python3 bench/mcc_share.py [--saturn target/release/saturn] [--timeout 60] [INSTANCE ...]
    python3 bench/mcc_share.py --exams LTLCardinality LTLFireability   # the LTL examinations
"""
import argparse
import pathlib
import subprocess
import sys
import time

EXAMS = ["CTLCardinality", "CTLFireability", "ReachabilityCardinality",
         "ReachabilityFireability", "UpperBounds", "GlobalProperties"]
GLOBAL = ["ReachabilityDeadlock", "QuasiLiveness", "Liveness", "OneSafe", "StableMarking"]


def oracle(d):
    out = {}
    for line in (d / "oracle.txt").read_text().splitlines():
        if not line.strip() or line.startswith("#") or line.startswith("StateSpace"):
            continue
        k, v = line.split()[:2]
        out[k] = v
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--saturn", default="target/release/saturn")
    ap.add_argument("--timeout", type=int, default=60)
    ap.add_argument("--dir", default=str(pathlib.Path(__file__).resolve().parents[2]
                                         / "shared" / "benchmarks" / "mcc"))
    ap.add_argument("--exams", nargs="+", default=EXAMS,
                    help="the examinations (default: the five formula ones and GlobalProperties)")
    ap.add_argument("instances", nargs="*")
    a = ap.parse_args()
    root = pathlib.Path(a.dir)
    names = a.instances or sorted(p.name for p in root.iterdir() if (p / "oracle.txt").exists())
    exams = a.exams
    tot = {e: [0, 0, 0] for e in exams}
    secs = {e: [] for e in exams}
    notes = []
    for name in names:
        d = root / name
        want = oracle(d)
        for e in exams:
            ids = GLOBAL if e == "GlobalProperties" else [k for k in want if f"-{e}-" in k]
            ids = [k for k in ids if k in want and want[k] != "?"]
            t0 = time.monotonic()
            try:
                r = subprocess.run([a.saturn, "mcc", str(d), "--examination", e,
                                    "--timeout", str(a.timeout)], capture_output=True,
                                   text=True, timeout=a.timeout + 30)
                got = {}
                for line in r.stdout.splitlines():
                    f = line.split()
                    if len(f) >= 3 and f[0] == "FORMULA":
                        got[f[1]] = f[2]
            except subprocess.TimeoutExpired:
                got = {}
            secs[e].append(time.monotonic() - t0)
            for k in ids:
                g = got.get(k)
                if g is None or g == "CANNOT_COMPUTE":
                    tot[e][2] += 1
                    notes.append(f"unanswered {k}")
                elif g == want[k]:
                    tot[e][0] += 1
                else:
                    tot[e][1] += 1
                    notes.append(f"DISAGREE {k}: got {g}, oracle {want[k]}")
            print(f"{name} {e}: {tot[e]}", file=sys.stderr, flush=True)
    for n in notes:
        print(n)
    all_ = [sum(t[i] for t in tot.values()) for i in range(3)]
    for e in exams:
        s = sorted(secs[e])
        print(f"{e}: agreed {tot[e][0]}, disagreed {tot[e][1]}, not answered {tot[e][2]}, "
              f"answered {100.0 * (tot[e][0] + tot[e][1]) / max(1, sum(tot[e])):.1f}%; "
              f"seconds per run: median {s[len(s) // 2]:.1f}, max {s[-1]:.1f}, "
              f"total {sum(s):.0f}")
    print(f"all: agreed {all_[0]}, disagreed {all_[1]}, not answered {all_[2]}, "
          f"answered {100.0 * (all_[0] + all_[1]) / max(1, sum(all_)):.1f}%")


if __name__ == "__main__":
    main()
