#!/usr/bin/env python3
"""Writes the tables of bench/RESULTS.md from clstream-bench's JSON files.

    python3 bench/table.py [FILE.json ...]         print the tables
    python3 bench/table.py --update RESULTS.md [FILE.json ...]

With no FILE, it reads bench/results/*.json; each file's name (without
.json) names its column.  --update replaces the text between the lines
"<!-- table.py begin -->" and "<!-- table.py end -->" of RESULTS.md, so
that the figures there are always the kept runs' own.
"""
import glob
import json
import os
import sys

BEGIN = "<!-- table.py begin -->"
END = "<!-- table.py end -->"
# Quarters are shown where the run's four quarters spread this much or more.
QUARTER_SPREAD = 0.10


def load(paths):
    runs = []
    for p in paths:
        with open(p) as f:
            runs.append((os.path.basename(p)[: -len(".json")], json.load(f)))
    return runs


def scenario_order(runs):
    """Scenario names, the longest run's order first, then any others."""
    names = []
    for _, d in sorted(runs, key=lambda r: -len(r[1]["scenarios"])):
        for s in d["scenarios"]:
            if s["name"] not in names:
                names.append(s["name"])
    return names


def ratio_cell(s):
    if not s.get("ratio"):
        return ""
    cell = "%.3f" % s["ratio"]
    lo, hi = s.get("ratio_quarters_min"), s.get("ratio_quarters_max")
    if lo is not None and hi is not None and hi - lo >= QUARTER_SPREAD:
        cell += " (%.2f-%.2f)" % (lo, hi)
    if s.get("capped"):
        cell += "*"
    return cell


def row(cells):
    return "| " + " | ".join(cells) + " |"


def runs_table(runs):
    out = [row(["run", "date (UTC)", "mode", "build", "device", "driver"]),
           "|---|---|---|---|---|---|"]
    for name, d in runs:
        dev = d["device"]
        out.append(row([name, d["date"].replace("T", " ").rstrip("Z")[:16],
                        d["mode"], d["backend"],
                        "%s (%s)" % (dev["name"], dev["platform"]),
                        dev["driver"]]))
    return out


def ratio_table(runs):
    out = [row(["scenario"] + [n for n, _ in runs]),
           "|---|" + "---:|" * len(runs)]
    by_run = [{s["name"]: s for s in d["scenarios"]} for _, d in runs]
    for name in scenario_order(runs):
        out.append(row([name] + [ratio_cell(b[name]) if name in b else ""
                                 for b in by_run]))
    # What the elapsed and flat_memory scenarios measure besides time.
    cells = []
    for b in by_run:
        s = b.get("elapsed", {})
        cells.append("%.3f (%.3f)" % (s["ours_event_over_host"],
                                      s["raw_event_over_host"])
                     if "ours_event_over_host" in s else "")
    out.append(row(["elapsed: events/host time, ours (raw)"] + cells))
    cells = []
    for b in by_run:
        s = b.get("flat_memory", {})
        cells.append("%+.1f KiB / %s" % (s["ours_growth_bytes"] / 1024.0,
                                         "{:,}".format(s["cycles_per_side"]))
                     if "ours_growth_bytes" in s else "")
    out.append(row(["flat_memory: RSS growth, ours / cycles"] + cells))
    return out


def graph_table(runs):
    """The graph rows (issue 28): per kernel, graph replay / plain launches
    / raw, and graph over plain; None where no run has them."""
    by_run = [{s["name"]: s for s in d["scenarios"]} for _, d in runs]
    names = [n for n in scenario_order(runs) if n.startswith("graph_")]
    if not names:
        return None
    out = [row(["ns per kernel"] + [n for n, _ in runs]),
           "|---|" + "---:|" * len(runs)]
    for name in names:
        cells = []
        for b in by_run:
            s = b.get(name, {})
            cells.append("%.0f / %.0f / %.0f (%.3f%s)" % (
                s["ours"]["median"], s["plain"]["median"], s["raw"]["median"],
                s["ratio_plain"], "*" if s.get("capped") else "")
                if "plain" in s else "")
        out.append(row([name] + cells))
    return out


def fmt_target(name, v, limit=False):
    """A target's value (or, with limit, its limit) in the target's unit."""
    if name.endswith("_bytes"):
        return ("%.0f KiB" if limit else "%+.1f KiB") % (v / 1024.0)
    if name.endswith("_ns"):
        return "%.1f ns" % v
    return "%.3f" % v


def targets_table(runs):
    names = []
    for _, d in runs:
        for t in d.get("targets", []):
            if t["name"] not in names:
                names.append(t["name"])
    out = [row(["target"] + [n for n, _ in runs]),
           "|---|" + "---|" * len(runs)]
    for tn in names:
        cells = []
        limit = ""
        for _, d in runs:
            t = next((t for t in d.get("targets", []) if t["name"] == tn), None)
            if t is None:
                cells.append("")
                continue
            limit = t["limit"]
            v = fmt_target(tn, t["value"])
            cells.append(v if t["pass"] else "**%s missed**" % v)
        out.append(row(["%s <= %s" % (tn, fmt_target(tn, limit, True))] + cells))
    return out


def tables(runs):
    lines = ["Runs (bench/results/README.md names each one's commit):", ""]
    lines += runs_table(runs)
    lines += ["", "ours/raw of the medians (quarters in brackets where they "
              "spread %.2f or more; * a time-capped row):" % QUARTER_SPREAD,
              ""]
    lines += ratio_table(runs)
    graphs = graph_table(runs)
    if graphs:
        lines += ["", "Graph rows, medians in ns per kernel: graph replay / "
                  "plain launches through clstream / raw (graph over plain):",
                  ""]
        lines += graphs
    lines += ["", "The targets, as each run's JSON judged them:", ""]
    lines += targets_table(runs)
    return "\n".join(lines) + "\n"


def main(argv):
    update = None
    if argv[:1] == ["--update"]:
        if len(argv) < 2:
            sys.exit("usage: table.py [--update RESULTS.md] [FILE.json ...]")
        update, argv = argv[1], argv[2:]
    here = os.path.dirname(os.path.abspath(__file__))
    paths = argv or sorted(glob.glob(os.path.join(here, "results", "*.json")))
    if not paths:
        sys.exit("table.py: no JSON file")
    text = tables(load(paths))
    if update is None:
        sys.stdout.write(text)
        return
    with open(update) as f:
        doc = f.read()
    if BEGIN not in doc or END not in doc:
        sys.exit("table.py: %s has no %s ... %s block" % (update, BEGIN, END))
    head, rest = doc.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    with open(update, "w") as f:
        f.write(head + BEGIN + "\n" + text + END + tail)


if __name__ == "__main__":
    main(sys.argv[1:])
