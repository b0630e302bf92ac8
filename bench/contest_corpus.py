#!/usr/bin/env python3
"""The StateSpace share on the Model Checking Contest's 2025 corpus (issue 12).

The corpus stays outside the repository: bring it in with the library's `fetch`
(`github:yanntm/pnmcc-models-2025`, branch `gh-pages`), then

    python3 bench/contest_corpus.py --corpus GITDIR --work DIR list all > all.txt
    python3 bench/contest_corpus.py --corpus GITDIR --work DIR sample --seed 36 > s.txt
    python3 bench/contest_corpus.py --corpus GITDIR --work DIR run BINARY 60 s.txt out.tsv
    python3 bench/contest_corpus.py compare new.tsv base.tsv

`list` names the P/T instances with a StateSpace answer in the contest's oracle
(TINA.tedd's), leaving out those under ../shared/benchmarks/mcc; `sample` draws
`--per-family` of them per family (seeded, so the same seed draws the same sample;
`--exclude LIST` leaves out earlier samples). `run` extracts each instance under
WORK/inst (an OUT that exists is resumed: its instances are not run again), runs `saturn mcc DIR --examination StateSpace --timeout T` one at a time,
compares the four figures with the oracle and writes one row per instance: name, kind,
status (ok, wrong, none), seconds, peak memory (KiB) and the techniques printed. A
`wrong` row is a disagreement with the oracle (a figure the oracle gives as -1, unknown, is
not compared). Kinds, from the oracle and the net:
unbounded (`+inf`), wide (a place holds 100 tokens or more), large (200 places or
transitions or more), other.
"""
import argparse
import collections
import io
import pathlib
import random
import re
import subprocess
import sys
import tarfile
import time

FIGURES = ["STATES", "TRANSITIONS", "MAX_TOKEN_IN_PLACE", "MAX_TOKEN_PER_MARKING"]
KINDS = ["unbounded", "wide", "large", "other"]
SHARED = pathlib.Path(__file__).resolve().parents[2] / "shared" / "benchmarks" / "mcc"


def git_bytes(corpus, path):
    return subprocess.run(["git", "-C", str(corpus), "show", f"gh-pages:{path}"],
                          capture_output=True, check=True).stdout


def oracle_dir(corpus, work):
    d = work / "oracle"
    if not d.exists():
        d.mkdir(parents=True)
        with tarfile.open(fileobj=io.BytesIO(git_bytes(corpus, "oracle.tar.gz"))) as t:
            t.extractall(d)
    return next(d.rglob("*-SS.out")).parent


def oracle(corpus, work):
    out = {}
    for f in oracle_dir(corpus, work).glob("*-PT-*-SS.out"):
        figs = {}
        for line in f.read_text().splitlines():
            w = line.split()
            if len(w) >= 3 and w[0] == "STATE_SPACE":
                figs[w[1]] = w[2]
        if all(k in figs for k in FIGURES):
            out[f.name[:-len("-SS.out")]] = figs
    return out


def family(name):
    return name.split("-PT-")[0]


def inputs(corpus):
    out = subprocess.run(["git", "-C", str(corpus), "ls-tree", "--name-only", "gh-pages",
                          "INPUTS/"], capture_output=True, text=True, check=True).stdout
    return {l[len("INPUTS/"):-len(".tgz")] for l in out.split() if l.endswith(".tgz")}


def listed(corpus, work):
    """Instances with a StateSpace answer and a model in INPUTS, outside ../shared."""
    shared = {p.name for p in SHARED.iterdir()} if SHARED.exists() else set()
    have = inputs(corpus)
    return sorted(n for n in oracle(corpus, work) if n not in shared and n in have)


def instance(corpus, work, name):
    d = work / "inst" / name
    if not (d / "model.pnml").exists():
        with tarfile.open(fileobj=io.BytesIO(git_bytes(corpus, f"INPUTS/{name}.tgz"))) as t:
            t.extractall(work / "inst")
    return d


def kind(d, figs):
    if figs["STATES"] == "+inf":
        return "unbounded"
    if int(figs["MAX_TOKEN_IN_PLACE"]) >= 100:
        return "wide"
    text = (d / "model.pnml").read_text(errors="replace")
    if max(len(re.findall(r"<place\b", text)), len(re.findall(r"<transition\b", text))) >= 200:
        return "large"
    return "other"


def run(a):
    corpus, work = pathlib.Path(a.corpus), pathlib.Path(a.work)
    want = oracle(corpus, work)
    names = [n.strip() for n in pathlib.Path(a.list).read_text().split() if n.strip()]
    rows, t0 = [], time.time()
    done = read(a.out) if pathlib.Path(a.out).exists() else {}
    have = inputs(corpus)
    with open(a.out, "a") as out:
        for i, name in enumerate(names):
            if name in done:
                rows.append(done[name])
                continue
            if name not in have:
                print(f"[{i + 1}/{len(names)}] {name}: no model in INPUTS, skipped",
                      file=sys.stderr)
                continue
            figs = want[name]
            try:
                d = instance(corpus, work, name)
            except subprocess.CalledProcessError:
                # listed in INPUTS but its blob is absent from this copy of the corpus
                print(f"[{i + 1}/{len(names)}] {name}: model not readable, skipped",
                      file=sys.stderr)
                continue
            k = kind(d, figs)
            mem = work / "time.out"
            start = time.time()
            try:
                r = subprocess.run(["/usr/bin/time", "-o", str(mem), "-f", "%M", a.binary, "mcc",
                                    str(d), "--examination", "StateSpace", "--timeout",
                                    str(a.timeout)], capture_output=True, text=True,
                                   timeout=a.timeout + 30)
                stdout = r.stdout
            except subprocess.TimeoutExpired:
                stdout = ""
            secs = time.time() - start
            try:
                peak = int(mem.read_text().split()[-1])
            except (OSError, ValueError, IndexError):
                peak = 0
            got, tech = {}, set()
            for line in stdout.splitlines():
                w = line.split()
                if len(w) >= 3 and w[0] == "STATE_SPACE" and w[1] in FIGURES:
                    if w[2] != "CANNOT_COMPUTE":
                        got[w[1]] = w[2]
                    if "TECHNIQUES" in w:
                        tech.update(w[w.index("TECHNIQUES") + 1:])
            # the oracle's -1 is a figure it does not know (Dekker-PT-200's edges): not compared
            if any(got[f] != figs[f] for f in got if figs[f] != "-1"):
                status = "wrong"
            elif len(got) == len(FIGURES):
                status = "ok"
            else:
                status = "none"
            row = [name, k, status, f"{secs:.1f}", str(peak), " ".join(sorted(tech)) or "-"]
            rows.append(row)
            out.write("\t".join(row) + "\n")
            out.flush()
            print(f"[{i + 1}/{len(names)} {time.time() - t0:.0f}s] " + " ".join(row[:5]),
                  file=sys.stderr)
    summary(rows)


def summary(rows):
    by = collections.defaultdict(collections.Counter)
    for r in rows:
        by[r[1]][r[2]] += 1
        by["all"][r[2]] += 1
    print("| kind | instances | answered | wrong |")
    print("| --- | ---: | ---: | ---: |")
    for k in KINDS + ["all"]:
        c = by[k]
        n = sum(c.values())
        if n:
            print(f"| {k} | {n} | {c['ok']} ({100 * c['ok'] / n:.1f}%) | {c['wrong']} |")
    missed = [r[0] for r in rows if r[2] != "ok"]
    if missed:
        print("not answered or wrong: " + " ".join(missed))


def read(path):
    return {r[0]: r for r in (l.split("\t") for l in pathlib.Path(path).read_text().splitlines())}


def compare(a):
    new, base = read(a.new), read(a.base)
    summary(list(new.values()))
    for n in sorted(new):
        if n in base and new[n][2] != base[n][2]:
            print(f"{n}: {base[n][2]} {base[n][3]}s -> {new[n][2]} {new[n][3]}s")
    both = [n for n in new if n in base and new[n][2] == base[n][2] == "ok"]
    if both:
        tn = sum(float(new[n][3]) for n in both)
        tb = sum(float(base[n][3]) for n in both)
        print(f"answered by both: {len(both)}, {tn:.1f} s now, {tb:.1f} s before")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpus", help="the fetched corpus's git directory")
    ap.add_argument("--work", help="a scratch directory for the extracted instances")
    sub = ap.add_subparsers(dest="cmd", required=True)
    sub.add_parser("list").add_argument("what", choices=["all"])
    s = sub.add_parser("sample")
    s.add_argument("--seed", type=int, required=True)
    s.add_argument("--per-family", type=int, default=1)
    s.add_argument("--exclude", nargs="*", default=[])
    r = sub.add_parser("run")
    for x in ["binary", "timeout", "list", "out"]:
        r.add_argument(x)
    c = sub.add_parser("compare")
    c.add_argument("new")
    c.add_argument("base")
    a = ap.parse_args()
    if a.cmd == "compare":
        return compare(a)
    if not (a.corpus and a.work):
        ap.error("--corpus and --work are needed for " + a.cmd)
    if a.cmd == "run":
        a.timeout = int(a.timeout)
        return run(a)
    names = listed(pathlib.Path(a.corpus), pathlib.Path(a.work))
    if a.cmd == "sample":
        skip = set()
        for f in a.exclude:
            skip.update(pathlib.Path(f).read_text().split())
        fams = collections.defaultdict(list)
        for n in names:
            if n not in skip:
                fams[family(n)].append(n)
        rng = random.Random(a.seed)
        names = sorted(x for f in sorted(fams)
                       for x in rng.sample(fams[f], min(a.per_family, len(fams[f]))))
    print("\n".join(names))


if __name__ == "__main__":
    main()
