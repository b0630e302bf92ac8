#!/usr/bin/env python3
"""StateSpace beyond the contest's leader (issue 49, item 4).

The contest's StateSpace oracle in the 2025 corpus is TINA.tedd's (the leader's) answers; the
P/T instances without one are those it did not answer within the contest's 3,600 s. This
script runs Saturn on them, as a contest run does, and confirms every answer by a second,
independent technique:

    python3 bench/beyond_leader.py --corpus GITDIR --work DIR list > beyond.txt
    python3 bench/beyond_leader.py --corpus GITDIR --work DIR run BINARY 60 beyond.txt out.tsv
    python3 bench/beyond_leader.py summary out.tsv

(the corpus as for bench/contest_corpus.py; `list --smallest K` keeps the K smallest instances of
each family, by the size of their archive). `run` makes, per instance:

1. the contest's command, `saturn mcc DIR --examination StateSpace --timeout T --json` (the
   portfolio of orders, the explicit search, the polytope, the scaling, the boundedness race);
2. when it answers, a confirmation by another technique, `saturn statespace model.pnml --json`
   with `--explicit off --polytope off --scaling off` and one fixed order other than the one
   that answered (`sloan`, or `force` when `sloan` answered), within `--confirm-timeout`
   (default 4 T): decision diagrams under another variable order against the explicit
   search, the polytope, the scaling or another order. An unbounded net's +inf is confirmed
   when the confirmation's boundedness race finds a witness too.

One row per instance: name, kind, figures (states, transitions, max tokens in a place and in
a marking; `-` when not answered), seconds and peak KiB of run 1, what answered (the engine and
the order), then the confirmation's status (`agree`, `disagree`, `none`) with its seconds and
order. Resumable: an OUT that exists keeps its rows. `reconfirm BINARY OUT` tries further
techniques on the rows answered but not confirmed (the portfolio without the explicit search,
the polytope and the scaling; then other fixed orders in turn).
"""
import argparse
import json
import pathlib
import subprocess
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import contest_corpus as cc  # noqa: E402

KEYS = ["states", "transitions", "max_tokens_place", "max_tokens_marking"]


def candidates(corpus, work, smallest):
    """P/T instances in INPUTS, outside ../shared, without a StateSpace oracle; with
    `smallest`, the K smallest archives of each family."""
    have = cc.inputs(corpus)
    answered = cc.oracle(corpus, work)
    shared = {p.name for p in cc.SHARED.iterdir()} if cc.SHARED.exists() else set()
    names = sorted(n for n in have if "-PT-" in n and n not in shared and n not in answered)
    if not smallest:
        return names
    tree = subprocess.run(["git", "-C", str(corpus), "ls-tree", "-l", "gh-pages", "INPUTS/"],
                          capture_output=True, text=True, check=True).stdout
    size = {}
    for line in tree.splitlines():
        w = line.split()
        if len(w) >= 5 and w[4].endswith(".tgz"):
            size[w[4][len("INPUTS/"):-len(".tgz")]] = int(w[3]) if w[3].isdigit() else 0
    fams = {}
    for n in names:
        fams.setdefault(cc.family(n), []).append(n)
    return sorted(x for f in fams.values()
                  for x in sorted(f, key=lambda n: size.get(n, 0))[:smallest])


def timed(cmd, mem, timeout):
    """Run `cmd` under /usr/bin/time: (its JSON or None, seconds, peak KiB)."""
    start = time.time()
    try:
        r = subprocess.run(["/usr/bin/time", "-o", str(mem), "-f", "%M"] + cmd,
                           capture_output=True, text=True, timeout=timeout + 30)
        out = r.stdout
    except subprocess.TimeoutExpired:
        out = ""
    secs = time.time() - start
    try:
        peak = int(mem.read_text().split()[-1])
    except (OSError, ValueError, IndexError):
        peak = 0
    try:
        v = json.loads(out)
    except ValueError:
        v = None
    return v, secs, peak


def figures(v):
    """The four figures of a JSON answer, or None."""
    if not v or v.get("status") != "ok":
        return None
    if v.get("states") == "+inf":
        return ["+inf"] * 4
    try:
        return [str(v[k]) for k in KEYS]
    except KeyError:
        return None


def what(v):
    """What answered: the engine (symbolic with its order, explicit, polytope...)."""
    if not v or v.get("status") != "ok":
        return "-"
    if v.get("states") == "+inf":
        return "unbounded"
    e = v.get("engine") or v.get("technique") or "other"
    if isinstance(e, dict):
        e = "other"
    o = v.get("order_used")
    return f"{e}:{o}" if o else str(e)


def run(a):
    corpus, work = pathlib.Path(a.corpus), pathlib.Path(a.work)
    names = pathlib.Path(a.list).read_text().split()
    done = set()
    if pathlib.Path(a.out).exists():
        done = {l.split("\t")[0] for l in pathlib.Path(a.out).read_text().splitlines()}
    mem = pathlib.Path(str(a.out) + ".time")
    confirm_t = a.confirm_timeout or 4 * a.timeout
    t0 = time.time()
    with open(a.out, "a") as out:
        for i, name in enumerate(names):
            if name in done:
                continue
            try:
                d = cc.instance(corpus, work, name)
            except subprocess.CalledProcessError:
                print(f"[{i + 1}/{len(names)}] {name}: model not readable, skipped",
                      file=sys.stderr)
                continue
            v, secs, peak = timed([a.binary, "mcc", str(d), "--examination", "StateSpace",
                                   "--timeout", str(a.timeout), "--json"], mem, a.timeout)
            figs = figures(v)
            row = [name, cc.kind(d, None), " ".join(figs) if figs else "-", f"{secs:.1f}",
                   str(peak), what(v)]
            if figs:
                used = v.get("order_used")
                order = "force" if used == "sloan" else "sloan"
                w, s2, _ = timed([a.binary, "statespace", str(d / "model.pnml"), "--json",
                                  "--explicit", "off", "--polytope", "off", "--scaling", "off",
                                  "--order", order, "--timeout", str(confirm_t)], mem, confirm_t)
                g = figures(w)
                st = "none" if g is None else ("agree" if g == figs else "disagree")
                row += [st, f"{s2:.1f}", f"symbolic:{order}"]
            else:
                row += ["-", "0", "-"]
            out.write("\t".join(row) + "\n")
            out.flush()
            print(f"[{i + 1}/{len(names)} {time.time() - t0:.0f}s] " + " ".join(row),
                  file=sys.stderr)
    summary(a.out)


# the orders a confirmation tries, in turn, after the first one failed
ORDERS = ["sloan", "force", "cuthill-mckee", "noack", "file-rev", "semiflow"]


def reconfirm(a):
    """The rows of OUT answered but not confirmed: other confirmations in turn, each within
    `--confirm-timeout`: the decision diagrams' portfolio without the explicit search, the
    polytope and the scaling (when the answer came from one of those), then each fixed order
    of ORDERS other than the one that answered, until one agrees. OUT is rewritten."""
    corpus, work = pathlib.Path(a.corpus), pathlib.Path(a.work)
    rows = [l.split("\t") for l in pathlib.Path(a.out).read_text().splitlines()]
    mem = pathlib.Path(str(a.out) + ".time")
    t = a.confirm_timeout
    for r in rows:
        if r[2] == "-" or r[6] == "agree":
            continue
        d = cc.instance(corpus, work, r[0])
        figs = r[2].split()
        used = r[5].split(":")[1] if r[5].startswith("symbolic:") else None
        tries = []
        if not r[5].startswith("symbolic"):
            # another engine answered: the decision diagrams' portfolio (with the scaling,
            # which interpolates generated figures, when the polytope answered)
            scaling = "auto" if r[5] == "polytope" else "off"
            tries.append(("symbolic:portfolio",
                          [a.binary, "mcc", str(d), "--examination", "StateSpace", "--json",
                           "--explicit", "off", "--polytope", "off", "--scaling", scaling]))
        tries += [(f"symbolic:{o}",
                   [a.binary, "statespace", str(d / "model.pnml"), "--json", "--explicit", "off",
                    "--polytope", "off", "--scaling", "off", "--order", o])
                  for o in ORDERS if o != used and f"symbolic:{o}" != r[8]]
        for label, cmd in tries[:a.tries]:
            w, secs, _ = timed(cmd + ["--timeout", str(t)], mem, t)
            if w and w.get("order_used") and w.get("order_used") == used:
                continue
            g = figures(w)
            print(f"{r[0]}: {label} {secs:.1f}s {'-' if g is None else ' '.join(g)}",
                  file=sys.stderr)
            if g is not None:
                r[6:9] = ["agree" if g == figs else "disagree", f"{secs:.1f}", label]
                break
    pathlib.Path(a.out).write_text("".join("\t".join(r) + "\n" for r in rows))
    summary(a.out)


def summary(path):
    rows = [l.split("\t") for l in pathlib.Path(path).read_text().splitlines()]
    answered = [r for r in rows if r[2] != "-"]
    confirmed = [r for r in answered if r[6] == "agree"]
    print(f"instances: {len(rows)}, answered: {len(answered)}, confirmed by a second technique: "
          f"{len(confirmed)}, disagreeing: {sum(r[6] == 'disagree' for r in answered)}")
    print()
    print("| instance | kind | states | transitions | max in a place | max in a marking "
          "| s | peak MiB | answered by | confirmed by (s) |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |")
    for r in answered:
        f = r[2].split()
        print(f"| {r[0]} | {r[1]} | {f[0]} | {f[1]} | {f[2]} | {f[3]} | {r[3]} "
              f"| {int(r[4]) // 1024} | {r[5]} | {r[6]}: {r[8]} ({r[7]}) |")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpus", help="the fetched corpus's git directory")
    ap.add_argument("--work", help="a scratch directory for the extracted instances")
    sub = ap.add_subparsers(dest="cmd", required=True)
    ls = sub.add_parser("list")
    ls.add_argument("--smallest", type=int, default=0)
    r = sub.add_parser("run")
    r.add_argument("--confirm-timeout", type=int, default=0)
    for x in ["binary", "timeout", "list", "out"]:
        r.add_argument(x)
    rc = sub.add_parser("reconfirm")
    rc.add_argument("--confirm-timeout", type=int, default=240)
    rc.add_argument("--tries", type=int, default=3)
    rc.add_argument("binary")
    rc.add_argument("out")
    sm = sub.add_parser("summary")
    sm.add_argument("out")
    a = ap.parse_args()
    if a.cmd == "summary":
        return summary(a.out)
    if not (a.corpus and a.work):
        ap.error("--corpus and --work are needed for " + a.cmd)
    if a.cmd == "reconfirm":
        return reconfirm(a)
    if a.cmd == "list":
        print("\n".join(candidates(pathlib.Path(a.corpus), pathlib.Path(a.work), a.smallest)))
        return None
    a.timeout = int(a.timeout)
    return run(a)


if __name__ == "__main__":
    main()
