#!/usr/bin/env bash
# Draws clstream-bench's JSON as a PNG bar chart: ours vs raw median ns per
# operation for every scenario, log scale, the ours/raw ratio over each pair.
#
#   bash bench/plot.sh RESULTS.json [OUT.png]
#
# Needs gnuplot (Debian: gnuplot-nox, installed with apt-get when missing
# and we are root) and python3 or jq to read the JSON.
set -euo pipefail

json=${1:?usage: plot.sh RESULTS.json [OUT.png]}
out=${2:-${json%.json}.png}

if ! command -v gnuplot >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "plot.sh: installing gnuplot-nox" >&2
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq gnuplot-nox >/dev/null
  else
    echo "plot.sh: gnuplot is missing (Debian: apt-get install gnuplot-nox)" >&2
    exit 1
  fi
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# One row per scenario that has figures: name ours_median raw_median ratio;
# then the title line.
if command -v python3 >/dev/null 2>&1; then
  python3 - "$json" "$tmp/data" "$tmp/title" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
with open(sys.argv[2], "w") as f:
    for s in d["scenarios"]:
        if "ours" in s and "raw" in s and s["ours"]["median"] and s["raw"]["median"]:
            f.write("%s %g %g %g\n" % (s["name"], s["ours"]["median"],
                                        s["raw"]["median"], s["ratio"]))
dev = d["device"]
with open(sys.argv[3], "w") as f:
    f.write("clstream vs raw %s, %s: %s (%s, driver %s), %s run, %s\n" % (
        d["raw"]["api"], d["backend"] + " build", dev["name"], dev["platform"],
        dev["driver"], d["mode"], d["date"]))
EOF
elif command -v jq >/dev/null 2>&1; then
  jq -r '.scenarios[] | select(.ours != null and .raw != null)
         | "\(.name) \(.ours.median) \(.raw.median) \(.ratio)"' "$json" >"$tmp/data"
  jq -r '"clstream vs raw \(.raw.api), \(.backend) build: \(.device.name) (\(.device.platform), driver \(.device.driver)), \(.mode) run, \(.date)"' \
    "$json" >"$tmp/title"
else
  echo "plot.sh: need python3 or jq to read $json" >&2
  exit 1
fi

n=$(wc -l <"$tmp/data")
if [ "$n" -eq 0 ]; then
  echo "plot.sh: no scenario with figures in $json" >&2
  exit 1
fi
# gnuplot strings: escape what would end them.
title=$(sed 's/\\/\\\\/g; s/"/\\"/g; s/_/\\\\_/g' "$tmp/title")

gnuplot <<EOF
set terminal pngcairo size 1400,700 font "sans,10"
set output "$out"
set title "$title" noenhanced
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set logscale y
set yrange [1:*]
set format y "10^{%L}"
set ylabel "median ns per operation (log scale)"
set xtics rotate by -35 noenhanced
set grid ytics mytics
set key top left
set xlabel "number above each pair: ours/raw of the medians (lower is better for clstream)"
plot "$tmp/data" using 2:xtic(1) title "clstream" lc rgb "#1f77b4", \
     "" using 3 title "raw" lc rgb "#ff7f0e", \
     "" using (\$0):(\$2 > \$3 ? \$2 : \$3)*1.6:(sprintf("%.2f", \$4)) \
        with labels notitle font "sans,9"
EOF
echo "plot.sh: wrote $out"
