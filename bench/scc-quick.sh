#!/bin/sh
# Quick look: gpu-scc --stats on the medium models (default configuration) beside Tarjan.
. "$(dirname "$0")/common.sh"
awk -F'\t' '$2 == "medium" { print $1 }' "$models/INDEX.tsv" | while read -r name; do
    tra="$models/$name.tra"; [ -f "$tra" ] || tra="$tra.gz"
    "$bin/prism2csr" "$tra" > "$out/$name.csr"
    echo "== $name"
    "$bin/gpu-scc" --cpu --stats "$out/$name.csr" 2>&1 >/dev/null
    for config in "" "--bfbt" "--nh" "-c 3" "-c 7" "--host-loop"; do
        "$bin/gpu-scc" $config --stats "$out/$name.csr" 2>&1 >/dev/null | sed "s/^/[$config] /"
    done
done
