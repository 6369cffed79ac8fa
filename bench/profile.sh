#!/usr/bin/env bash
# Instructions per operation on the calling thread, clstream vs raw, per
# scenario, counted by callgrind: unlike wall-clock time on a shared
# machine, these counts do not move from run to run, so they show what the
# library itself adds over the raw calls.
#
#   bash bench/profile.sh BENCH_BINARY [SCENARIOS] [SAMPLES] [OUTDIR]
#
# SCENARIOS: comma-separated (default: all but elapsed and flat_memory,
# which are slow under valgrind); SAMPLES per side (default 200); OUTDIR
# keeps one callgrind file per scenario (default: a temporary folder) for
#   callgrind_annotate --inclusive=yes --tree=calling OUTDIR/cg.out.N
set -euo pipefail

bin=${1:?usage: profile.sh BENCH_BINARY [SCENARIOS] [SAMPLES] [OUTDIR]}
scen=${2:-record_idle,query_done,sync_done,record_sync,kernel_record_sync,pingpong,pingpong_timed,hostfn,legacy_1,legacy_8,legacy_64}
samples=${3:-200}
out=${4:-$(mktemp -d)}
mkdir -p "$out"
command -v valgrind >/dev/null || { echo "profile.sh: valgrind is missing" >&2; exit 1; }

# One dump per scenario: the bench calls clsGetLastError exactly once per
# scenario, at the end of its teardown.
rm -f "$out"/cg.out*
valgrind --tool=callgrind --dump-after=clsGetLastError \
  --callgrind-out-file="$out/cg.out" \
  "$bin" --samples "$samples" --scenario "$scen" >"$out/bench.txt" 2>"$out/valgrind.txt"

printf '%-20s %12s %12s %8s\n' scenario "ours Ir/op" "raw Ir/op" ours/raw
# The bench runs the scenarios in its own order (--list-inner), not in the
# order asked for, and dumps one file each in that order.
names=()
while read -r name _; do
  [[ ,$scen, == *",$name,"* ]] && names+=("$name")
done < <("$bin" --list-inner 2>/dev/null)
i=0
# In dump order: the number after the last dot (the folder may hold dots).
for f in $(ls "$out"/cg.out.* | awk -F. '{ print $NF, $0 }' | sort -n | cut -d" " -f2-); do
  name=${names[$i]:-?}
  i=$((i + 1))
  inner=$("$bin" --list-inner 2>/dev/null | awk -v n="$name" '$1 == n { print $2 }')
  callgrind_annotate --inclusive=yes --threshold=100 --tree=calling "$f" 2>/dev/null |
    awk -v name="$name" -v inner="${inner:-1}" '
      # "  1,815,357 (..)  >   FILE:ours_run (551x) [...]": a call from its
      # caller (FILE is ??? without debug information).
      / > +[^ ]*:(ours_run|raw_run) \(/ {
        ir = $1; gsub(",", "", ir)
        fn = $0; sub(/.*:/, "", fn); sub(/ .*/, "", fn)
        n = $0; sub(/.*\(/, "", n); sub(/x\).*/, "", n); gsub(",", "", n)
        tot[fn] += ir; calls[fn] += n
      }
      END {
        o = calls["ours_run"] ? tot["ours_run"] / calls["ours_run"] / inner : 0
        r = calls["raw_run"] ? tot["raw_run"] / calls["raw_run"] / inner : 0
        printf "%-20s %12.0f %12.0f %8.3f\n", name, o, r, r ? o / r : 0
      }'
done
echo "callgrind files: $out"
