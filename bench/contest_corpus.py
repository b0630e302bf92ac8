#!/usr/bin/env python3
"""Every examination on the Model Checking Contest's 2025 corpus (issues 12 and 49).

The corpus stays outside the repository: bring it in with the library's `fetch`
(`github:yanntm/pnmcc-models-2025`, branch `gh-pages`), then

    python3 bench/contest_corpus.py --corpus GITDIR --work DIR list all > all.txt
    python3 bench/contest_corpus.py --corpus GITDIR --work DIR list pt > pt.txt
    python3 bench/contest_corpus.py --corpus GITDIR --work DIR sample --seed 36 > s.txt
    python3 bench/contest_corpus.py --corpus GITDIR --work DIR shuffle --seed 49 pt.txt > pt-shuffled.txt
    python3 bench/contest_corpus.py --corpus GITDIR --work DIR run BINARY 60 s.txt out.tsv
    python3 bench/contest_corpus.py --corpus GITDIR --work DIR run --exams all BINARY 60 s.txt out.tsv
    python3 bench/contest_corpus.py summary out.tsv
    python3 bench/contest_corpus.py compare new.tsv base.tsv

`list all` names the P/T instances with a StateSpace answer in the contest's oracle
(TINA.tedd's), leaving out those under ../shared/benchmarks/mcc; `list pt` names every P/T
instance of INPUTS outside ../shared (the formula examinations' oracle covers them all).
`sample` draws `--per-family` of the `all` list per family (seeded, so the same seed draws the
same sample; `--exclude LIST` leaves out earlier samples); `shuffle` puts a list in a seeded
order, so that every prefix of it is a random sample and a run cut short still measures one.

`run` extracts each instance under WORK/inst (an OUT that exists is resumed: its rows are not
run again) and runs `saturn mcc DIR --examination E --timeout T`, one run at a time, for each
examination of `--exams` (comma-separated; default StateSpace; `all` is StateSpace, the five formula
examinations and GlobalProperties; LTLCardinality and LTLFireability can be named). It writes one
row per instance and examination: name, examination, kind, status, agreed, wrong, unanswered,
seconds, peak memory (KiB) and the techniques printed. For StateSpace the four figures are one
answer (a figure the oracle gives as -1, unknown, is not compared; an instance without a
StateSpace oracle gets no row); for the others each formula the contest decided is one answer
(its `?`s are not counted; the oracle's -NN is the NNth formula id in sorted order, see
`oracle_keys`), and GlobalProperties' five answers are ReachabilityDeadlock,
QuasiLiveness, Liveness, OneSafe and StableMarking. A `wrong` is a disagreement with the oracle.
Status: ok (all answered and agreed), wrong (any disagreement), partial, none, or `no-oracle`.
Kinds, from the oracle and the net: unbounded (`+inf` states), wide (a place holds 100 tokens
or more, in the oracle's bound or the initial marking), large (200 places or transitions or
more), other.
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
# the examinations and their oracle files' suffixes
FILES = {"ReachabilityCardinality": "RC", "ReachabilityFireability": "RF",
         "CTLCardinality": "CTLC", "CTLFireability": "CTLF", "UpperBounds": "UB",
         "LTLCardinality": "LTLC", "LTLFireability": "LTLF"}
GLOBAL = {"ReachabilityDeadlock": "RD", "QuasiLiveness": "QL", "Liveness": "L",
          "OneSafe": "OS", "StableMarking": "SM"}
ALL = ["StateSpace", "ReachabilityCardinality", "ReachabilityFireability", "CTLCardinality",
       "CTLFireability", "UpperBounds", "GlobalProperties"]
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
    if figs and figs["STATES"] == "+inf":
        return "unbounded"
    if figs and int(figs["MAX_TOKEN_IN_PLACE"]) >= 100:
        return "wide"
    text = (d / "model.pnml").read_text(errors="replace")
    initial = re.findall(r"<initialMarking>\s*<text>\s*(\d+)", text)
    if any(int(x) >= 100 for x in initial):
        return "wide"
    if max(len(re.findall(r"<place\b", text)), len(re.findall(r"<transition\b", text))) >= 200:
        return "large"
    return "other"


def formula_oracle(odir, name, exam):
    """The contest's decided answers of one instance and examination: id -> TRUE/FALSE/number."""
    files = ({k: f"{name}-{v}.out" for k, v in GLOBAL.items()} if exam == "GlobalProperties"
             else {None: f"{name}-{FILES[exam]}.out"})
    out = {}
    for key, f in files.items():
        path = odir / f
        if not path.exists():
            continue
        for line in path.read_text().splitlines():
            w = line.split()
            if len(w) >= 3 and w[0] == "FORMULA" and w[2] != "?":
                out[key or w[1]] = w[2]
    return out


def saturn(a, mem, d, exam):
    """One run: (stdout, seconds, peak KiB)."""
    start = time.time()
    try:
        r = subprocess.run(["/usr/bin/time", "-o", str(mem), "-f", "%M", a.binary, "mcc",
                            str(d), "--examination", exam, "--timeout", str(a.timeout)],
                           capture_output=True, text=True, timeout=a.timeout + 30)
        stdout = r.stdout
    except subprocess.TimeoutExpired:
        stdout = ""
    secs = time.time() - start
    try:
        peak = int(mem.read_text().split()[-1])
    except (OSError, ValueError, IndexError):
        peak = 0
    return stdout, secs, peak


def score_statespace(stdout, figs):
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
        return (0, 1, 0), tech
    if len(got) == len(FIGURES):
        return (1, 0, 0), tech
    return (0, 0, 1), tech


def oracle_keys(d, exam):
    """The formula ids of d/exam.xml -> the corpus oracle's keys. The oracle numbers its
    verdicts -00..-15 in the lexicographic order of the ids, not in file order: the CTL files
    hold `X-2025-00..11` and then four reused `X-2023-12..15`, which sort first."""
    if exam == "GlobalProperties":
        return {k: k for k in GLOBAL}
    path = d / f"{exam}.xml"
    if not path.exists():
        return {}
    ids = sorted(set(re.findall(r"<id>\s*([^<\s]+)\s*</id>", path.read_text(errors="replace"))))
    return {x: f"{d.name}-{exam}-{i:02d}" for i, x in enumerate(ids)}


def score_formulas(stdout, want, keys):
    got, tech = {}, set()
    for line in stdout.splitlines():
        w = line.split()
        if len(w) >= 3 and w[0] == "FORMULA" and w[1] in keys:
            got[keys[w[1]]] = w[2]
            if "TECHNIQUES" in w:
                tech.update(w[w.index("TECHNIQUES") + 1:])
    agreed = wrong = unanswered = 0
    for k, v in want.items():
        g = got.get(k)
        if g is None or g == "CANNOT_COMPUTE":
            unanswered += 1
        elif g == v:
            agreed += 1
        else:
            wrong += 1
            print(f"  WRONG {k}: saturn {g}, oracle {v}", file=sys.stderr)
    return (agreed, wrong, unanswered), tech


def status(counts):
    agreed, wrong, unanswered = counts
    if wrong:
        return "wrong"
    if not unanswered:
        return "ok"
    return "partial" if agreed else "none"


def exams_of(a):
    out = []
    for e in a.exams:
        out += ALL if e == "all" else [e]
    for e in out:
        if e != "StateSpace" and e != "GlobalProperties" and e not in FILES:
            sys.exit(f"contest_corpus.py: unknown examination {e}")
    return out


def run(a):
    corpus, work = pathlib.Path(a.corpus), pathlib.Path(a.work)
    want = oracle(corpus, work)
    odir = oracle_dir(corpus, work)
    exams = exams_of(a)
    names = [n.strip() for n in pathlib.Path(a.list).read_text().split() if n.strip()]
    rows, t0 = [], time.time()
    done = read(a.out) if pathlib.Path(a.out).exists() else {}
    have = inputs(corpus)
    # one file per OUT, so that two runs side by side (two binaries) keep their own figures
    mem = pathlib.Path(str(a.out) + ".time")
    with open(a.out, "a") as out:
        for i, name in enumerate(names):
            todo = [e for e in exams if (name, e) not in done]
            rows += [done[(name, e)] for e in exams if (name, e) in done]
            if not todo:
                continue
            if name not in have:
                print(f"[{i + 1}/{len(names)}] {name}: no model in INPUTS, skipped",
                      file=sys.stderr)
                continue
            try:
                d = instance(corpus, work, name)
            except subprocess.CalledProcessError:
                # listed in INPUTS but its blob is absent from this copy of the corpus
                print(f"[{i + 1}/{len(names)}] {name}: model not readable, skipped",
                      file=sys.stderr)
                continue
            figs = want.get(name)
            k = kind(d, figs)
            for e in todo:
                if e == "StateSpace":
                    if figs is None:
                        continue
                    stdout, secs, peak = saturn(a, mem, d, e)
                    counts, tech = score_statespace(stdout, figs)
                else:
                    answers = formula_oracle(odir, name, e)
                    if not answers:
                        row = [name, e, k, "no-oracle", "0", "0", "0", "0.0", "0", "-"]
                        rows.append(row)
                        out.write("\t".join(row) + "\n")
                        continue
                    stdout, secs, peak = saturn(a, mem, d, e)
                    counts, tech = score_formulas(stdout, answers, oracle_keys(d, e))
                row = [name, e, k, status(counts)] + [str(c) for c in counts] + [
                    f"{secs:.1f}", str(peak), " ".join(sorted(tech)) or "-"]
                rows.append(row)
                out.write("\t".join(row) + "\n")
                out.flush()
                print(f"[{i + 1}/{len(names)} {time.time() - t0:.0f}s] " + " ".join(row[:9]),
                      file=sys.stderr)
    summary(rows)


def summary(rows):
    """Tables by examination (answers and instances) and by kind, and the misses by family."""
    rows = [r for r in rows if r[3] != "no-oracle"]
    exams = [e for e in ALL + list(FILES) if any(r[1] == e for r in rows)]
    exams = list(dict.fromkeys(exams))
    print("| examination | instances | all answered | answers decided by the contest "
          "| agreed | wrong | unanswered | answered | median s |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    tot = [0, 0, 0]
    for e in exams:
        rs = [r for r in rows if r[1] == e]
        c = [sum(int(r[4 + j]) for r in rs) for j in range(3)]
        tot = [x + y for x, y in zip(tot, c)]
        n = sum(c)
        secs = sorted(float(r[7]) for r in rs)
        ok = sum(r[3] == "ok" for r in rs)
        print(f"| {e} | {len(rs)} | {ok} | {n} | {c[0]} | {c[1]} | {c[2]} "
              f"| {100 * (c[0] + c[1]) / max(1, n):.1f}% | {secs[len(secs) // 2]:.1f} |")
    n = sum(tot)
    print(f"| all | {len(rows)} | {sum(r[3] == 'ok' for r in rows)} | {n} | {tot[0]} | {tot[1]} "
          f"| {tot[2]} | {100 * (tot[0] + tot[1]) / max(1, n):.1f}% | |")
    print()
    print("| kind | instances | answers | agreed | wrong | unanswered | answered |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for k in KINDS:
        rs = [r for r in rows if r[2] == k]
        if not rs:
            continue
        c = [sum(int(r[4 + j]) for r in rs) for j in range(3)]
        n = sum(c)
        print(f"| {k} | {len({r[0] for r in rs})} | {n} | {c[0]} | {c[1]} | {c[2]} "
              f"| {100 * (c[0] + c[1]) / max(1, n):.1f}% |")
    wrong = [f"{r[0]} {r[1]}" for r in rows if r[3] == "wrong"]
    if wrong:
        print("\nwrong: " + ", ".join(wrong))
    miss = collections.defaultdict(list)
    for r in rows:
        if int(r[6]):
            miss[r[0]].append(f"{r[1]} {r[6]}")
    if miss:
        print("\nunanswered (instance: examination and count):")
        for name in sorted(miss):
            print(f"- {name}: " + ", ".join(miss[name]))


def read(path):
    """Rows by (instance, examination); the StateSpace-only rows of the first format
    (name, kind, status, seconds, peak, techniques) are read as StateSpace rows."""
    out = {}
    for line in pathlib.Path(path).read_text().splitlines():
        r = line.split("\t")
        if len(r) == 6:
            c = {"ok": "1 0 0", "wrong": "0 1 0"}.get(r[2], "0 0 1").split()
            r = [r[0], "StateSpace", r[1], r[2] if r[2] != "none" else "none"] + c + r[3:]
        out[(r[0], r[1])] = r
    return out


def compare(a):
    new, base = read(a.new), read(a.base)
    summary(list(new.values()))
    for n in sorted(new):
        if n in base and new[n][3] != base[n][3]:
            print(f"{n[0]} {n[1]}: {base[n][3]} {base[n][7]}s -> {new[n][3]} {new[n][7]}s")
    both = [n for n in new if n in base and new[n][3] == base[n][3] == "ok"]
    if both:
        tn = sum(float(new[n][7]) for n in both)
        tb = sum(float(base[n][7]) for n in both)
        print(f"answered by both: {len(both)}, {tn:.1f} s now, {tb:.1f} s before")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpus", help="the fetched corpus's git directory")
    ap.add_argument("--work", help="a scratch directory for the extracted instances")
    sub = ap.add_subparsers(dest="cmd", required=True)
    sub.add_parser("list").add_argument("what", choices=["all", "pt"])
    s = sub.add_parser("sample")
    s.add_argument("--seed", type=int, required=True)
    s.add_argument("--per-family", type=int, default=1)
    s.add_argument("--exclude", nargs="*", default=[])
    sh = sub.add_parser("shuffle")
    sh.add_argument("--seed", type=int, required=True)
    sh.add_argument("list")
    r = sub.add_parser("run")
    r.add_argument("--exams", type=lambda x: x.split(","), default=["StateSpace"],
                   help="comma-separated examinations, or all (default StateSpace)")
    for x in ["binary", "timeout", "list", "out"]:
        r.add_argument(x)
    sm = sub.add_parser("summary")
    sm.add_argument("out")
    c = sub.add_parser("compare")
    c.add_argument("new")
    c.add_argument("base")
    a = ap.parse_args()
    if a.cmd == "compare":
        return compare(a)
    if a.cmd == "summary":
        return summary(list(read(a.out).values()))
    if a.cmd == "shuffle":
        names = pathlib.Path(a.list).read_text().split()
        random.Random(a.seed).shuffle(names)
        print("\n".join(names))
        return None
    if not (a.corpus and a.work):
        ap.error("--corpus and --work are needed for " + a.cmd)
    if a.cmd == "run":
        a.timeout = int(a.timeout)
        return run(a)
    if a.cmd == "list" and a.what == "pt":
        shared = {p.name for p in SHARED.iterdir()} if SHARED.exists() else set()
        print("\n".join(sorted(n for n in inputs(pathlib.Path(a.corpus))
                               if "-PT-" in n and n not in shared)))
        return None
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
    return None


if __name__ == "__main__":
    main()
