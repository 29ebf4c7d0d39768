#!/bin/bash
# Two builds side by side on QVBS instances, end to end as qvbs-check times
# ours: prism2csr of Storm's UMB, then one gpu-vi run answering every property
# of the properties file as written.  "new" is this tree, "old" the same tree
# with the files of OVERLAY over it (bench/ab.sh, build_overlay).  Each
# INSTANCE is UMB:PROPS[:CONSTS] (CONSTS as gpu-vi's --const); RUNS runs
# (default 3) alternate old and new, and a Markdown row gives each build's
# prism2csr and gpu-vi seconds (wall, min-max), gpu-vi's seconds on MECs and
# on iterations (--stats=json's mec_s and iterate_s summed over the
# properties, of the fastest run), and whether both found the same classes
# and MECs for every property and values within 1e-6 of each other (relative;
# the largest difference shown: the GPU's iteration order varies run to run).
# PHASES=FILE: each build's last run's seconds by phase, a line a property, appended there.
#   bench/vi-ab.sh OVERLAY INSTANCE...
# The UMBs: qvbs-check --phase storm --no-storm --as-written (bench/qvbs.sh).
set -uo pipefail
. "$(dirname "$0")/common.sh"
[ $# -ge 2 ] || { echo "usage: bench/vi-ab.sh OVERLAY UMB:PROPS[:CONSTS]..." >&2; exit 2; }
overlay=$1
shift
runs=${RUNS:-3}
build_overlay "$overlay" || exit 1
range() { printf '%s\n' "$@" | sort -g | sed -n '1p;$p' | paste -sd- -; }
# run BIN UMB PROPS CONSTS TAG: prints "p2c_s vi_s mec_s iterate_s"; answers in $out/vi-ab-TAG.json
run() {
    local b=$1 umb=$2 props=$3 consts=$4 tag=$5 t0 t1 t2
    t0=$(now)
    "$b/prism2csr" -q "$umb" > "$out/vi-ab.csr" || { echo "$tag prism2csr failed on $umb" >&2; return 1; }
    t1=$(now)
    "$b/gpu-vi" --json -P "$props" ${consts:+--const "$consts"} --stats=json "$out/vi-ab.csr" \
        > "$out/vi-ab-$tag.json" 2> "$out/vi-ab-$tag.stats" || { echo "$tag gpu-vi failed on $umb" >&2; return 1; }
    t2=$(now)
    python3 - "$t0" "$t1" "$t2" "$out/vi-ab-$tag.stats" <<'PY'
import json, sys
t0, t1, t2 = map(float, sys.argv[1:4])
mec = it = 0.0
for line in open(sys.argv[4]):
    try:
        j = json.loads(line)
    except ValueError:
        continue
    mec += j.get("mec_s", 0.0) or 0.0
    it += j.get("iterate_s", 0.0) or 0.0
print(f"{t1 - t0:.3f} {t2 - t1:.3f} {mec:.3f} {it:.3f}")
PY
}
same() { # the answers of old and new, and their classes and MEC counts, property by property
    python3 - "$out"/vi-ab-{old,new}.{json,stats} <<'PY'
import json, math, sys
def values(f):  # by position and text; the errors too
    j = json.load(open(f))
    v = {(i, p["property"]): [s.get("value") for s in p.get("initial", [])] for i, p in enumerate(j["properties"])}
    v.update({("error", e.get("name"), e.get("error")): None for e in j.get("errors", [])})
    return v
def counts(f):
    rows = []
    for line in open(f):
        try:
            j = json.loads(line)
        except ValueError:
            continue
        rows.append(tuple(j.get(k) for k in ("yes", "no", "maybe", "mecs", "mec_states")))
    return rows
va, vb = values(sys.argv[1]), values(sys.argv[3])
ok, worst = va.keys() == vb.keys() and counts(sys.argv[2]) == counts(sys.argv[4]), 0.0
for k in va:
    x, y = va[k], vb.get(k)
    if not (isinstance(x, list) and isinstance(y, list) and len(x) == len(y)):
        ok &= x == y
        continue
    for u, v in zip(x, y):
        if isinstance(u, float) and isinstance(v, float) and math.isfinite(u) and math.isfinite(v):
            worst = max(worst, abs(u - v) / max(abs(u), abs(v), 1e-300))
        else:
            ok &= u == v
print(f"{len(va)}, classes and MECs equal, values within {worst:.1e}" if ok and worst <= 1e-6 else
      f"DIFFER (values within {worst:.1e})")
PY
}
phases() { # BUILD INSTANCE: the last run's seconds a property, by phase (--stats=json), a line each
    python3 - "$1" "$2" "$out/vi-ab-$1.stats" <<'PY'
import json, sys
keys = ("prob01_s", "mec_s", "sweep_classes_s", "compact_s", "upload_s", "gpu_iterate_s", "download_s", "iterate_s")
for line in open(sys.argv[3]):
    try:
        j = json.loads(line)
    except ValueError:
        continue
    print(sys.argv[1], sys.argv[2], j.get("property"), " ".join(f"{k}={j.get(k, 0) or 0:.4f}" for k in keys),
          f"sweep_rounds={j.get('sweep_rounds', '-')} iterations={j.get('iterations', '-')}")
PY
}
echo "| instance | old prism2csr s | new prism2csr s | old gpu-vi s | new gpu-vi s | old MECs / iterations s | new MECs / iterations s | answers |"
echo "|---|---:|---:|---:|---:|---|---|---|"
for spec in "$@"; do
    IFS=: read -r umb props consts <<< "$spec"
    [ -f "$umb" ] || { echo "$umb: not there" >&2; continue; }
    op=() np=() ov=() nv=() obest="" nbest="" omin=1e9 nmin=1e9
    for _ in $(seq "$runs"); do
        r=$(run "$old/build/bin" "$umb" "$props" "$consts" old) || exit 1
        read -r p v m i <<< "$r"
        op+=("$p") ov+=("$v")
        if awk "BEGIN { exit !($v < $omin) }"; then omin=$v obest="$m / $i"; fi
        r=$(run "$bin" "$umb" "$props" "$consts" new) || exit 1
        read -r p v m i <<< "$r"
        np+=("$p") nv+=("$v")
        if awk "BEGIN { exit !($v < $nmin) }"; then nmin=$v nbest="$m / $i"; fi
    done
    echo "| $(basename "$umb" .umb) | $(range "${op[@]}") | $(range "${np[@]}") | $(range "${ov[@]}") |" \
        "$(range "${nv[@]}") | $obest | $nbest | $(same) |"
    [ -n "${PHASES:-}" ] && for b in old new; do phases "$b" "$(basename "$umb" .umb)"; done >> "$PHASES"
done
rm -rf "$old" "$out/vi-ab.csr"
