#!/bin/sh
# CPU reference times on the medium models of ../shared/models: iterative
# Tarjan (gpu-scc --cpu) and the basic MEC algorithm (gpu-mec --cpu), the
# decomposition alone (from --stats), best of RUNS runs, beside PRISM's own
# SCC and MEC times from INDEX.tsv (explicit engine, one core of a 2-core x86
# machine).  Prints a Markdown table.
set -eu
. "$(dirname "$0")/common.sh"
runs=${RUNS:-3}
best_of() { # command... ; prints the smallest "<word> <seconds> s" figure named by $KEY
    b=""
    for i in $(seq "$runs"); do
        s=$("$@" 2>&1 >/dev/null | sed -n "s/.*$KEY \([0-9.]*\) s.*/\1/p")
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
    scc=$(KEY=Tarjan best_of taskset -c 0 "$bin/gpu-scc" --cpu --stats "$csr")
    mec=$(KEY=MEC best_of taskset -c 0 "$bin/gpu-mec" --cpu --stats "$csr")
    rounds=$("$bin/gpu-mec" --cpu --stats "$csr" 2>&1 >/dev/null | sed -n 's/.* \([0-9]*\) rounds.*/\1/p')
    echo "| $name | $states | $trans | $scc | $prism_scc | $mec | $rounds | $prism_mec |"
    rm -f "$csr"
done
