#!/bin/sh
# CPU reference times on the medium models of ../shared/models: iterative
# Tarjan (gpu-scc --cpu) and the basic MEC algorithm (gpu-mec --cpu), the
# decomposition alone (decompose_s of --stats=json), best of RUNS runs, beside PRISM's own
# SCC and MEC times from INDEX.tsv (explicit engine, one core of a 2-core x86
# machine).  Prints a Markdown table.
set -eu
. "$(dirname "$0")/common.sh"
runs=${RUNS:-3}
best_of() { # command... ; prints the smallest decompose_s of its --stats=json
    b=""
    for i in $(seq "$runs"); do
        s=$("$@" 2>&1 >/dev/null | jget decompose_s)
        if [ -z "$b" ] || awk "BEGIN { exit !($s < $b) }"; then b=$s; fi
    done
    echo "$b"
}
echo "| model | states | transitions | Tarjan s | PRISM SCC s | basic MEC s | MEC rounds | PRISM MEC s |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|"
awk -F'\t' '$2 == "medium" { print $1, $4, $6, $10, $11 }' "$models/INDEX.tsv" |
while read -r name states trans prism_scc prism_mec; do
    tra="$models/$name.tra"; [ -f "$tra" ] || tra="$tra.gz"
    csr="$out/$name.csr"
    "$bin/prism2csr" "$tra" > "$csr"
    scc=$(best_of taskset -c 0 "$bin/gpu-scc" --cpu --stats=json "$csr")
    mec=$(best_of taskset -c 0 "$bin/gpu-mec" --cpu --stats=json "$csr")
    rounds=$("$bin/gpu-mec" --cpu --stats=json "$csr" 2>&1 >/dev/null | jget rounds)
    echo "| $name | $states | $trans | $scc | $prism_scc | $mec | $rounds | $prism_mec |"
    rm -f "$csr"
done
