#!/bin/bash
# Two builds side by side in one call, as every comparison of code on the
# lent GPU must be: this tree ("new") and the same tree with the files of
# OVERLAY put over it ("old": a folder holding the other versions of the
# files that differ, at their paths in the tree; on the device, whose copy of
# .git is not the developer's, this is how an older version travels).  For
# each MODEL (NAME.csr in $LARGE, default /tmp/large, or a path) and each
# command of CMDS, the labels of both builds are compared, then RUNS runs
# (default 3) alternate old and new, and a Markdown row gives each build's
# resident decompose_s (--stats=json), min-max in ms.
#   bench/ab.sh OVERLAY MODEL...
#   CMDS="gpu-scc;gpu-mec;gpu-mec --scheme interleave" (default: the first two)
set -uo pipefail
. "$(dirname "$0")/common.sh"
[ $# -ge 2 ] || { echo "usage: bench/ab.sh OVERLAY MODEL..." >&2; exit 2; }
overlay=$1
shift
runs=${RUNS:-3}
large=${LARGE:-/tmp/large}
IFS=';' read -r -a cmds <<< "${CMDS:-gpu-scc;gpu-mec}"
build_overlay "$overlay" || exit 1
ms() { # build tool args... : decompose_s of one run, in ms
    local b=$1
    shift
    "$b/$1" "${@:2}" --stats=json 2>&1 > /dev/null | jget decompose_s | awk '{ printf "%.2f", $1 * 1000 }'
}
range() { printf '%s\n' "$@" | sort -g | sed -n '1p;$p' | paste -sd- -; }
echo "| model | command | old ms | new ms | labels |"
echo "|---|---|---:|---:|---|"
for m in "$@"; do
    csr=$m
    while [ -f "$large/$m.building" ]; do sleep 2; done # on-device.sh --prepare-large
    [ -f "$csr" ] || csr="$large/$m.csr"
    [ -f "$csr" ] || { echo "$m: no $csr" >&2; continue; }
    for c in "${cmds[@]}"; do
        read -r -a cmd <<< "$c"
        "$old/build/bin/${cmd[0]}" "${cmd[@]:1}" "$csr" > "$out/ab-old.labels"
        "$bin/${cmd[0]}" "${cmd[@]:1}" "$csr" > "$out/ab-new.labels"
        same=$(cmp -s "$out/ab-old.labels" "$out/ab-new.labels" && echo equal || echo DIFFER)
        o=() n=()
        for _ in $(seq "$runs"); do
            o+=("$(ms "$old/build/bin" "${cmd[@]}" "$csr")")
            n+=("$(ms "$bin" "${cmd[@]}" "$csr")")
        done
        echo "| $(basename "$csr" .csr) | $c | $(range "${o[@]}") | $(range "${n[@]}") | $same |"
    done
done
rm -rf "$old"
