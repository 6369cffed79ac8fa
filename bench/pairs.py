#!/usr/bin/env python3
"""Compares alternated runs of two builds of clstream-bench, row by row.

    python3 bench/pairs.py BEFORE.json[,...] AFTER.json[,...]

Each side is one or more JSON files of `clstream-bench --json`, one run
each, taken alternately with the other side's (before, after, before,
...) so that the machine's drift falls on both.  For every scenario the
two sides share, it prints one markdown row: the number of runs a side,
then for each side the median over its runs of the run's own ratio of
medians (graph / plain where the row has a plain side, ours / raw
otherwise), the lowest and highest run in brackets, and the median of
the runs' ours / raw.
"""
import statistics
import sys

from table import load, row


def rows(paths):
    """Scenario name -> list of (headline ratio, ours/raw), one per run."""
    out = {}
    for _, d in load(paths):
        for s in d["scenarios"]:
            if "ratio" not in s:  # a skipped row
                continue
            head = s.get("ratio_plain", s["ratio"])
            out.setdefault(s["name"], []).append((head, s["ratio"]))
    return out


def spread(values):
    return "%.3f (%.3f-%.3f)" % (statistics.median(values), min(values), max(values))


def main(argv):
    if len(argv) != 3:
        sys.stderr.write(__doc__)
        return 2
    before, after = rows(argv[1].split(",")), rows(argv[2].split(","))
    print(row(["row", "runs a side", "graph / plain (or ours / raw) before",
               "after", "ours / raw before", "after"]))
    print("|---|---:|---|---|---|---|")
    for name, b in before.items():
        a = after.get(name)
        if not a:
            continue
        print(row([name, "%d/%d" % (len(b), len(a)),
                   spread([r[0] for r in b]), spread([r[0] for r in a]),
                   "%.3f" % statistics.median(r[1] for r in b),
                   "%.3f" % statistics.median(r[1] for r in a)]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
