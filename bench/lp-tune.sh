#!/bin/bash
# The lp engine's one tunable, measured: gpu-scc and gpu-mec resident times
# (--stats=json decompose_s, best of RUNS, default 3) for each
# --sweeps of SWEEPS (default "1 2 3 4 16"), on NAME.csr of
# $LARGE (default /tmp/large; bench/large.sh --prepare builds them), and the
# per-kernel GPU times of one default gpu-scc run under ncu when ncu is there
# (NCU=0 skips it).  Prints a Markdown table and the ncu summary.
#   bench/lp-tune.sh MODEL...
set -uo pipefail
. "$(dirname "$0")/common.sh"
runs=${RUNS:-3}
large=${LARGE:-/tmp/large}
sweeps=${SWEEPS:-"1 2 3 4 16"}
best() { # tool args...: the best decompose_s of RUNS runs
    local b="" i s
    for i in $(seq "$runs"); do
        s=$("$bin/$1" "${@:2}" --stats=json 2>&1 > /dev/null | jget decompose_s)
        b=$(awk -v b="$b" -v s="$s" 'BEGIN { print (b == "" || s < b) ? s : b }')
    done
    echo "$b"
}
head="| model | tool |"; rule="|---|---|"
for t in $sweeps; do head+=" sweeps $t |"; rule+="---:|"; done
echo "$head"; echo "$rule"
for name in "$@"; do
    while [ -f "$large/$name.building" ]; do sleep 2; done
    csr=$large/$name.csr
    [ -f "$csr" ] || { echo "$name: no $csr" >&2; continue; }
    for tool in gpu-scc gpu-mec; do
        row="| $name | $tool |"
        for t in $sweeps; do row+=" $(best $tool --sweeps "$t" "$csr") |"; done
        echo "$row"
    done
done
if [ "${NCU:-1}" = 1 ] && command -v ncu > /dev/null; then
    for name in "$@"; do
        echo; echo "ncu, gpu-scc $name (kernel, launches, total ms):"
        ncu --metrics gpu__time_duration.sum --csv "$bin/gpu-scc" "$large/$name.csr" 2>/dev/null > "$out/ncu-$name.csv" || true
        python3 - "$out/ncu-$name.csv" <<'PY'
import csv, sys, collections
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 5]
if not rows:
    sys.exit()
h = rows[0]
k, m, v, u = h.index("Kernel Name"), h.index("Metric Name"), h.index("Metric Value"), h.index("Metric Unit")
scale = {"nsecond": 1e-6, "usecond": 1e-3, "msecond": 1.0, "second": 1e3}
tot = collections.defaultdict(lambda: [0, 0.0])
for r in rows[1:]:
    if r[m] == "gpu__time_duration.sum":
        t = tot[r[k].split("(")[0]]
        t[0] += 1
        t[1] += float(r[v].replace(",", "")) * scale.get(r[u], 1e-6)  # to ms
for name, (n, ms) in sorted(tot.items(), key=lambda x: -x[1][1]):
    print(f"{name}\t{n}\t{ms:.3f}")
print(f"all\t{sum(t[0] for t in tot.values())}\t{sum(t[1] for t in tot.values()):.3f}")
PY
    done
fi
