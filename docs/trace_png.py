#!/usr/bin/env python3
"""Draws a CLSTREAM_TRACE file (Chrome trace event format) as a PNG
timeline with gnuplot: one lane per stream, one box per command.

    python3 docs/trace_png.py TRACE.json OUT.png
"""
import json
import subprocess
import sys

trace, out = sys.argv[1], sys.argv[2]
events = json.load(open(trace))["traceEvents"]
lanes = {e["tid"]: e["args"]["name"] for e in events if e["ph"] == "M"}
spans = [e for e in events if e["ph"] == "X"]
order = sorted(lanes)
row = {tid: i for i, tid in enumerate(order)}
colors = {"kernel": "#3b82c4", "copy": "#f28e2b", "set": "#59a14f",
          "marker": "#9c755f", "host": "#e15759"}
end = max((s["ts"] + s["dur"] for s in spans), default=1.0)
cmds = [
    "set terminal pngcairo size 1100,%d font 'sans,10'" % (160 + 60 * len(order)),
    "set output '%s'" % out, "set termoption noenhanced",
    "set title 'clstream timeline: %s'" % trace.split("/")[-1],
    "set xlabel 'time (us, from the first command)'",
    "set yrange [-0.7:%f]" % (len(order) - 0.3),
    "set xrange [0:%f]" % (end * 1.05),
    "set ytics (%s)" % ", ".join("'%s' %d" % (lanes[t], row[t]) for t in order),
    "unset key", "set grid xtics",
]
for i, s in enumerate(spans):
    y = row[s["tid"]]
    x0, x1 = s["ts"], s["ts"] + max(s["dur"], end * 0.004)
    c = colors.get(s.get("cat"), "#888888")
    cmds.append("set object %d rect from %f,%f to %f,%f fc rgb '%s' fs solid 0.9"
                % (i + 1, x0, y - 0.3, x1, y + 0.3, c))
    cmds.append("set label %d '%s' at %f,%f font 'sans,8'"
                % (i + 1, s["name"], x0, y + 0.42))
cmds.append("plot -1 notitle")
subprocess.run(["gnuplot"], input="\n".join(cmds), text=True, check=True)
print("wrote", out)
